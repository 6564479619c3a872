"""Meta's webhook bodies for the channel tests, and posting them signed as Meta does: the view stores the
body's items as jobs and a worker records them (messaging.channels.queue); `post_signed` runs the
worker's turns in the test's process, the way tests/integrations/support.py drains the mirror."""

from __future__ import annotations

import json
from typing import Any

from messaging.channels import calls, queue
from messaging.channels.models import ChannelCall, ChannelInboundBatch
from tests.messaging.contract import CUSTOMER
from tests.messaging.graph_standin import APP_SECRET, PAGE_ID, PHONE_NUMBER_ID, WABA_ID, sign

PSID = "246813579024680"


def inbound_drain(session) -> int:
    """Run the session's turns until no row is pending, then the calls they left (read receipts), as a
    worker would; how many turns."""
    turns = 0
    waiting = ChannelInboundBatch.objects.filter(session=session, status=ChannelInboundBatch.Status.PENDING)
    while waiting.exists():
        assert queue.session_drain(str(session.pk)) == 1, "a pending row was not taken"
        turns += 1
    pending = ChannelCall.objects.filter(session=session, status=ChannelCall.Status.PENDING)
    for chat in set(pending.values_list("chat", flat=True)):
        calls.QUEUE.drain((str(session.pk), chat))
    return turns


def post_signed(
    client, session, body: dict[str, Any], *, secret: str = APP_SECRET, signature: str | None = None
):
    """POST `body` signed, then record what it stored (the worker's turns, in this process)."""
    raw = json.dumps(body).encode()
    response = client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=signature if signature is not None else sign(raw, secret),
    )
    inbound_drain(session)
    return response


def cloud_body(*, messages: list | None = None, statuses: list | None = None, name: str = "Maria") -> dict:
    value: dict[str, Any] = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "551140000001", "phone_number_id": PHONE_NUMBER_ID},
    }
    if messages is not None:
        value["contacts"] = [{"profile": {"name": name}, "wa_id": CUSTOMER}]
        value["messages"] = messages
    if statuses is not None:
        value["statuses"] = statuses
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": WABA_ID, "changes": [{"field": "messages", "value": value}]}],
    }


def cloud_message(kind: str, payload: dict, *, mid: str = "wamid.IN1", ts: int = 1763800000, **extra) -> dict:
    return {"from": CUSTOMER, "id": mid, "timestamp": str(ts), "type": kind, kind: payload, **extra}


def page_body(*items: dict, provider: str = "messenger") -> dict:
    return {
        "object": "instagram" if provider == "instagram" else "page",
        "entry": [{"id": PAGE_ID, "time": 1763800000000, "messaging": list(items)}],
    }


def page_item(ts_ms: int = 1763800000000, sender: str = PSID, **kind: Any) -> dict:
    return {"sender": {"id": sender}, "recipient": {"id": PAGE_ID}, "timestamp": ts_ms, **kind}
