from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from integrations.bots.models import Bot
        from integrations.bots.sink import bots_changed
        from integrations.chatwoot.models import ChatwootIntegration
        from integrations.chatwoot.sink import integration_changed

        # The sink keeps which sessions have a working integration (webhooks.lookups): drop it on writes.
        post_save.connect(
            integration_changed, sender=ChatwootIntegration, dispatch_uid="chatwoot-lookup-save"
        )
        post_delete.connect(
            integration_changed, sender=ChatwootIntegration, dispatch_uid="chatwoot-lookup-del"
        )
        # The bots' sink keeps each session's enabled bots the same way.
        post_save.connect(bots_changed, sender=Bot, dispatch_uid="bots-lookup-save")
        post_delete.connect(bots_changed, sender=Bot, dispatch_uid="bots-lookup-del")
