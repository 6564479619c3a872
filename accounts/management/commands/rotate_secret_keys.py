"""`manage.py rotate_secret_keys`: re-encrypt stored secrets under the first of PONTE_SECRET_KEYS."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from core.encryption import DecryptionFailed
from core.rotation import rotate_all


class Command(BaseCommand):
    help = (
        "Re-encrypt every encrypted value (webhook secrets, channel credentials) under the first key of "
        "PONTE_SECRET_KEYS. Run it after putting a new key first; then the older keys can be removed."
    )

    def handle(self, *args, **options) -> None:
        try:
            counts = rotate_all()
        except DecryptionFailed as exc:
            raise CommandError(str(exc)) from None
        for count in counts:
            self.stdout.write(
                f"{count.label}: {count.rewritten} re-encrypted, {count.current} already under the first key"
            )
        self.stdout.write(self.style.SUCCESS("Every encrypted value is now under the first key."))
