from django.apps import AppConfig


class BondsConfig(AppConfig):
    name = "bonds"
    verbose_name = "Bonds"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Subscription
        from bonds.models import Bond, Issuer, ProjectionSnapshot
        from bonds.selectors import data_version_bump
        from bonds.services import subscription_cache_key

        def bump(**_kwargs) -> None:
            data_version_bump()

        # An edit in the admin changes what the list shows: forget the cached replies.
        for model in (Bond, Issuer, ProjectionSnapshot):
            post_save.connect(
                bump, sender=model, weak=False, dispatch_uid=f"bonds-bump-{model.__name__}-save"
            )
            post_delete.connect(
                bump, sender=model, weak=False, dispatch_uid=f"bonds-bump-{model.__name__}-del"
            )

        def forget_subscription(instance: Subscription, **_kwargs) -> None:
            from django.core.cache import cache

            cache.delete(subscription_cache_key(instance.account_id))

        post_save.connect(forget_subscription, sender=Subscription, weak=False, dispatch_uid="bonds-sub-save")
        post_delete.connect(
            forget_subscription, sender=Subscription, weak=False, dispatch_uid="bonds-sub-del"
        )
