from importlib import import_module

from django.apps import apps
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Load demo data (idempotent): every app's `demo.load()`, in INSTALLED_APPS order."
    # `make demo` runs it right after `migrate`, which ran the checks: printing their warnings again in
    # the same start was noise (issue 45).
    requires_system_checks: list[str] = []

    def handle(self, *args, **options) -> None:
        for config in apps.get_app_configs():
            try:
                module = import_module(f"{config.name}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.demo":
                    raise
                continue
            self.stdout.write(f"{config.verbose_name}:")
            module.load(stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data loaded."))
