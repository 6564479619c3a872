from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = "Messaging sessions"

    def ready(self) -> None:
        from messaging import checks  # noqa: F401  (registers the system checks)
        from messaging.services.events import wire_sink

        # The event sink is named in settings and wired here, once: messaging never imports webhooks.
        wire_sink()
