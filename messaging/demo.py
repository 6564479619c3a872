"""Demo messaging data for `manage.py load_demo`: sandbox sessions of the `demo` account (idempotent)."""

from __future__ import annotations

from typing import TextIO

from django.db import transaction

from accounts.models import Account
from messaging.addressing import normalize_jid
from messaging.engines.base import QrCode
from messaging.models import Session
from messaging.services import messages, sessions

DEMO_ACCOUNT = "demo"
CONNECTED_NAME = "demo-sandbox"
WAITING_NAME = "demo-waiting"
OWN_PHONE = "5511999990001"
CUSTOMER = "5511988880002"


@transaction.atomic
def load(*, stdout: TextIO) -> None:
    account = Account.objects.filter(name=DEMO_ACCOUNT).first()
    if account is None:
        stdout.write("  no 'demo' account (accounts demo not loaded); skipped\n")
        return
    connected = account.sessions.filter(name=CONNECTED_NAME).first()
    if connected is None:
        connected = sessions.session_create(account=account, name=CONNECTED_NAME)
        instance_key = connected.instance_key  # stored as a digest: printed this once
        sessions.session_connect(session=connected)
        sessions.sandbox_scan(session=connected, phone=OWN_PHONE)
        customer = normalize_jid(CUSTOMER)
        inbound = sessions.sandbox_inject(
            session=connected,
            event="message",
            data={
                "from": customer,
                "type": "text",
                "fromMe": False,
                "pushName": "Cliente Demo",
                "text": "Olá! Meu pedido 1234 já saiu?",
            },
        )
        connected.refresh_from_db()
        messages.message_send_text(
            session=connected,
            to=customer,
            text="Olá! Saiu hoje cedo; chega amanhã.",
            quoted=messages.QuotedInput(message_id=inbound["id"]),
        )
        stdout.write(f"  sandbox session {CONNECTED_NAME} connected as {OWN_PHONE}, with two messages\n")
        stdout.write(f"  its instance key (shown once; /instances/<key>/instance): {instance_key}\n")
    if not account.sessions.filter(name=WAITING_NAME).exists():
        waiting = sessions.session_create(account=account, name=WAITING_NAME)
        sessions.session_connect(session=waiting)
        stdout.write(f"  sandbox session {WAITING_NAME} waiting for a QR scan\n")
    waiting_qr_refresh()
    for session in Session.objects.filter(account=account).order_by("created_at"):
        stdout.write(f"    {session.id}  {session.name:<14} {session.status}\n")


def demo_session_ids() -> dict[str, str]:
    """The demo sessions' ids under the names the docs' examples read: `SID` (connected) and
    `WAITING_SID` (waiting for a scan); only those that exist."""
    names = {CONNECTED_NAME: "SID", WAITING_NAME: "WAITING_SID"}
    rows = Session.objects.filter(account__name=DEMO_ACCOUNT, name__in=names).values_list("name", "id")
    return {names[name]: str(pk) for name, pk in rows}


def waiting_qr_refresh() -> tuple[Session, QrCode] | None:
    """Make the waiting demo session's QR code current (a code from an earlier run has expired)."""
    waiting = Session.objects.filter(
        account__name=DEMO_ACCOUNT, name=WAITING_NAME, status=Session.Status.QR
    ).first()
    if waiting is None:
        return None
    return waiting, sessions.session_qr(session=waiting)
