from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Account, Plan, Subscription
from accounts.services import account_create
from core.errors import ApplicationError


class Command(BaseCommand):
    help = "Create a customer account on a plan, optionally with a bonds subscription."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="short unique name (letters, digits, - and _)")
        parser.add_argument(
            "--plan", required=True, help="plan name, e.g. Free, Inicial, Intermediário, Empresarial"
        )
        parser.add_argument("--customer", default="", help="customer's display name (default: NAME)")
        parser.add_argument("--email", default="")
        parser.add_argument("--bonds-subscription", choices=Subscription.Status.values)

    def handle(self, *args, **options) -> None:
        plan = Plan.objects.filter(name__iexact=options["plan"]).first()
        if plan is None:
            names = ", ".join(Plan.objects.values_list("name", flat=True))
            raise CommandError(f"Unknown plan {options['plan']!r}; plans are: {names}.")
        if Account.objects.filter(name=options["name"]).exists():
            raise CommandError(f"An account named {options['name']!r} already exists.")
        try:
            account = account_create(
                name=options["name"],
                plan=plan,
                customer=options["customer"],
                email=options["email"],
                bonds_subscription=options["bonds_subscription"],
            )
        except (ApplicationError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        except Exception as exc:
            if type(exc).__name__ == "ValidationError":
                raise CommandError("; ".join(getattr(exc, "messages", [str(exc)]))) from None
            raise
        self.stdout.write(f"Created account {account.name} on plan {plan.name}.")
