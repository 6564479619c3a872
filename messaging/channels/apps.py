from django.apps import AppConfig


class ChannelsConfig(AppConfig):
    """The official channels: an app of their own on messaging's floor, built on messaging's models
    (their tables keep the `messaging_` names they were created with: migration 0001 moved only the
    state, decision record 0020)."""

    name = "messaging.channels"
    label = "channels"
    verbose_name = "Official channels"
