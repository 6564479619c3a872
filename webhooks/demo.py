"""Demo data for `manage.py load_demo`: a signed webhook on the demo account's first session."""

from __future__ import annotations

from typing import TextIO

from django.db import transaction

from accounts.models import Account
from messaging.models import Session
from webhooks.models import Webhook

DEMO_URL = "https://example.com/ponte-webhook"
DEMO_SECRET = "demo-webhook-secret"  # noqa: S105 (a published demo value, not a credential)


@transaction.atomic
def load(*, stdout: TextIO) -> None:
    account = Account.objects.filter(name="demo").first()
    session = Session.objects.filter(account=account).order_by("created_at").first() if account else None
    if session is None:
        stdout.write(
            "  no demo session yet: register webhooks with POST /gateway/webhooks (docs/webhooks.md)\n"
        )
        return
    webhook = Webhook.objects.filter(account=account, session=session, url=DEMO_URL).first()
    if webhook is None:
        # Created directly (no URL resolution: the demo must load without internet access).
        webhook = Webhook.objects.create(
            account=account,
            session=session,
            url=DEMO_URL,
            secret=DEMO_SECRET,
            events=["message", "connected"],
        )
    stdout.write(
        f"  webhook {webhook.id} on session '{session.name}' → {DEMO_URL} (secret '{DEMO_SECRET}');\n"
        "  deliveries that cannot reach it become dead letters: see Admin → Webhooks → Deliveries\n"
    )
