from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from accounts.models import Account, ApiKey
from accounts.services import api_key_create
from core.errors import ApplicationError


def _aware(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--expires {value!r} is not an ISO 8601 date or time.") from None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


class Command(BaseCommand):
    help = "Issue an API key for an account. The full key is printed alone on the last line, once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True)
        parser.add_argument("--role", required=True, help="admin, operator or viewer")
        parser.add_argument("--name", default="")
        parser.add_argument("--expires", help="ISO 8601, e.g. 2027-01-31 or 2027-01-31T12:00:00-03:00")
        parser.add_argument("--allowed-ip", action="append", default=[], metavar="CIDR")
        parser.add_argument("--allowed-session", action="append", default=[], metavar="UUID")

    def handle(self, *args, **options) -> None:
        account = Account.objects.filter(name=options["account"]).first()
        if account is None:
            raise CommandError(f"Unknown account {options['account']!r}.")
        if options["role"] not in ApiKey.Role.values:
            raise CommandError(f"Bad role {options['role']!r}; use one of: {', '.join(ApiKey.Role.values)}.")
        try:
            key, plaintext = api_key_create(
                account=account,
                role=options["role"],
                name=options["name"],
                expires_at=_aware(options["expires"]) if options["expires"] else None,
                allowed_ips=options["allowed_ip"],
                allowed_sessions=options["allowed_session"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"Issued {key.role} key {key.prefix}… for {account.name}. It is shown only now:")
        self.stdout.write(plaintext)
