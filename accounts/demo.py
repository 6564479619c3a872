"""Demo accounts and keys for `manage.py load_demo`."""

from __future__ import annotations

import os
from typing import TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Account, ApiKey, Plan, Subscription
from accounts.services import account_create, api_key_create

DEMO_ADMIN_USER = "admin"
DEMO_ADMIN_PASSWORD = os.environ.get("PONTE_DEMO_ADMIN_PASSWORD", "admin")
# One account per plan; the Empresarial one holds one key per role and an active bonds subscription.
DEMO_ACCOUNTS = {
    "Free": ("demo-free", Subscription.Status.CANCELED),
    "Inicial": ("demo-inicial", Subscription.Status.PAST_DUE),
    "Intermediário": ("demo-intermediario", None),
    "Empresarial": ("demo", Subscription.Status.ACTIVE),
}
DEMO_KEY_ACCOUNT = "demo"


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
    if account.api_keys.filter(name__startswith="demo-").exists():
        stdout.write(
            "  demo keys were issued and printed on the first run; issue another with\n"
            "    python manage.py issue_key --account demo --role admin\n"
        )
        return
    issued = [api_key_create(account=account, role=role, name=f"demo-{role}") for role in ApiKey.Role.values]
    stdout.write(
        "  demo API keys (account 'demo', plan Empresarial, bonds subscription active), shown once:\n"
    )
    for key, plaintext in issued:
        stdout.write(f"    {key.role:<8} {plaintext}\n")
    admin_key, base = issued[0][1], settings.PONTE_BASE_URL
    stdout.write(
        "  try:\n"
        f"    curl -H 'X-API-Key: {admin_key}' {base}/api/sessions\n"
        f"    curl -H 'Authorization: Bearer {admin_key}' '{base}/bonds/api/?product=cdb'\n"
    )
