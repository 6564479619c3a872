"""Demo accounts and keys for `manage.py load_demo`."""

from __future__ import annotations

from typing import TextIO

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.demo_keys import DEMO_KEY_ACCOUNT, demo_keys
from accounts.models import Account, Plan, Subscription
from accounts.services import account_create
from core.env import env_str

DEMO_ADMIN_USER = "admin"
DEMO_ADMIN_PASSWORD = env_str("PONTE_DEMO_ADMIN_PASSWORD", "admin")
# One account per plan; the Empresarial one holds one key per role and an active bonds subscription.
DEMO_ACCOUNTS = {
    "Free": ("demo-free", Subscription.Status.CANCELED),
    "Inicial": ("demo-inicial", Subscription.Status.PAST_DUE),
    "Intermediário": ("demo-intermediario", None),
    "Empresarial": ("demo", Subscription.Status.ACTIVE),
}
DEMO_CUSTOMER_EMAIL = "demo@example.com"
DEMO_CUSTOMER_PASSWORD = env_str("PONTE_DEMO_CUSTOMER_PASSWORD", "demo")


@transaction.atomic
def load(*, stdout: TextIO) -> None:
    user_model = get_user_model()
    if not user_model.objects.filter(username=DEMO_ADMIN_USER).exists():
        user_model.objects.create_superuser(DEMO_ADMIN_USER, "admin@example.com", DEMO_ADMIN_PASSWORD)
        stdout.write(f"  staff superuser: {DEMO_ADMIN_USER} / {DEMO_ADMIN_PASSWORD}  (sign in at /admin/)\n")
    for plan_name, (name, bonds) in DEMO_ACCOUNTS.items():
        if not Account.objects.filter(name=name).exists():
            account_create(
                name=name,
                plan=Plan.objects.get(name=plan_name),
                customer=f"Demo ({plan_name})",
                bonds_subscription=bonds,
            )
    account = Account.objects.get(name=DEMO_KEY_ACCOUNT)
    if account.user is None:
        account.user = _demo_customer()
        account.save(update_fields=["user", "updated_at"])
        stdout.write(
            f"  demo customer: {DEMO_CUSTOMER_EMAIL} / {DEMO_CUSTOMER_PASSWORD}  (sign in at /account/)\n"
        )
    demo_keys()
    stdout.write("  demo API keys: printed when the server is up (make keys prints fresh ones)\n")


def _demo_customer():
    users = get_user_model()
    user = users.objects.filter(username=DEMO_CUSTOMER_EMAIL).first()
    if user is None:
        user = users.objects.create_user(DEMO_CUSTOMER_EMAIL, DEMO_CUSTOMER_EMAIL, DEMO_CUSTOMER_PASSWORD)
    return user
