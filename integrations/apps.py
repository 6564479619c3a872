from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from integrations.chatwoot.models import ChatwootIntegration
        from integrations.chatwoot.sink import working_integration

        # The sink keeps which sessions have a working integration (webhooks.lookups): dropped on every
        # write of an integration, whatever API made it.
        working_integration.watch(ChatwootIntegration)
