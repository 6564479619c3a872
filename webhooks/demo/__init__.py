"""Demo data for `manage.py load_demo`: a signed webhook on the demo account's first session, posting
to the demo receiver that Ponte itself serves (webhooks.demo.receiver), so nothing leaves the machine."""

from __future__ import annotations

from typing import TextIO

from django.db import transaction

from accounts.models import Account
from messaging.models import Session
from webhooks.demo.receiver import DEMO_SECRET, demo_receiver_url
from webhooks.models import Webhook

# Where demo webhooks of earlier versions pointed; moved to the local receiver on the next load.
OLD_DEMO_URLS = ("https://example.com/ponte-webhook",)


@transaction.atomic
def load(*, stdout: TextIO) -> None:
    account = Account.objects.filter(name="demo").first()
    session = Session.objects.filter(account=account).order_by("created_at").first() if account else None
    if session is None:
        stdout.write(
            "  no demo session yet: register webhooks with POST /gateway/webhooks (docs/webhooks.md)\n"
        )
        return
    url = demo_receiver_url()
    demo_hooks = Webhook.objects.filter(account=account, session=session)
    webhook = next((hook for hook in demo_hooks if hook.secret == DEMO_SECRET), None)
    if webhook is None:
        # Created directly: the loopback target is allowed only while `make run` opens 127.0.0.1/32.
        webhook = Webhook.objects.create(
            account=account, session=session, url=url, secret=DEMO_SECRET, events=["message", "connected"]
        )
    elif webhook.url != url and (webhook.url in OLD_DEMO_URLS or "/demo/webhook" in webhook.url):
        webhook.url = url  # the port may differ from the last run's
        webhook.save(update_fields=["url"])
    stdout.write(
        f"  webhook {webhook.id} on session '{session.name}' → {webhook.url} (secret '{DEMO_SECRET}');\n"
        "  what it receives is shown at /demo/\n"
    )
