from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API keys"

    def ready(self) -> None:
        from accounts import checks  # noqa: F401  (registers the system checks)
