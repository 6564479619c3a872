from django.apps import AppConfig


class BondsConfig(AppConfig):
    name = "bonds"
    verbose_name = "Bonds"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Account, Subscription
        from bonds import checks  # noqa: F401  (registers the Copom calendar check)
        from bonds.access import subscription_forget
        from bonds.models import Bond, Issuer, ProjectionSnapshot
        from bonds.replies import data_version_bump

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
            subscription_forget(account_id=instance.account_id)

        def forget_account(instance: Account, **_kwargs) -> None:
            # A new account may reuse the id of a deleted one (SQLite): forget what was remembered.
            subscription_forget(account_id=instance.pk)

        post_save.connect(forget_subscription, sender=Subscription, weak=False, dispatch_uid="bonds-sub-save")
        post_delete.connect(
            forget_subscription, sender=Subscription, weak=False, dispatch_uid="bonds-sub-del"
        )
        post_save.connect(forget_account, sender=Account, weak=False, dispatch_uid="bonds-account-save")
        post_delete.connect(forget_account, sender=Account, weak=False, dispatch_uid="bonds-account-del")
