from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API keys"

    def ready(self) -> None:
        from accounts import checks, schema  # noqa: F401  (register the system checks and schema extension)
