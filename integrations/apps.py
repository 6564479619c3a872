from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from integrations.bots.lookups import session_bots
        from integrations.bots.models import Bot
        from integrations.chatwoot.lookups import working_integration
        from integrations.chatwoot.models import ChatwootIntegration

        # The sink keeps which sessions have a working integration (webhooks.lookups): dropped on every
        # write of an integration, whatever API made it.
        working_integration.watch(ChatwootIntegration)
        # The bots' sink keeps each session's enabled bots the same way.
        session_bots.watch(Bot)
