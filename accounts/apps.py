from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API keys"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts import checks, schema  # noqa: F401  (register the system checks and schema extension)
        from accounts.models import Account, ApiKey, Plan
        from accounts.services import api_keys_forget

        # Resolved keys are cached with their account and plan: any change to one of them must be
        # seen by the next call (revocation, expiry, allow-lists, plan limits).
        def forget_key(instance: ApiKey, **_kwargs) -> None:
            api_keys_forget(prefixes=[instance.prefix])

        def forget_account(instance: Account, **_kwargs) -> None:
            api_keys_forget(
                prefixes=list(ApiKey.objects.filter(account=instance).values_list("prefix", flat=True))
            )

        def forget_plan(instance: Plan, **_kwargs) -> None:
            prefixes = ApiKey.objects.filter(account__plan=instance).values_list("prefix", flat=True)
            api_keys_forget(prefixes=list(prefixes))

        for model, handler in ((ApiKey, forget_key), (Account, forget_account), (Plan, forget_plan)):
            for signal in (post_save, post_delete):
                signal.connect(
                    handler, sender=model, weak=False, dispatch_uid=f"accounts-forget-{model.__name__}"
                )
