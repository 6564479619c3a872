from importlib import import_module

from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = "Messaging sessions"

    def import_models(self) -> None:
        super().import_models()
        # The official channels' models are models of this app defined next to their code; Django
        # imports only `messaging.models`, which does not import the channels (they build on it).
        import_module("messaging.channels.models")

    def ready(self) -> None:
        from messaging import checks  # noqa: F401  (registers the system checks)
        from messaging.channels.official import register
        from messaging.services.events import wire_sink

        # The event sink is named in settings and wired here, once: messaging never imports webhooks.
        wire_sink()
        # The services hand official sessions to the channels through the table they fill here.
        register()
