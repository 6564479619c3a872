"""The `http` kind, for n8n, Make, Zapier or any service: Ponte POSTs the message as a registered
webhook would (the same body, signed the same way, the same `webhook-id` on every retry of one turn),
with a `bot` object beside it, and sends what the answer's `replies` say (kinds.replies)."""

from __future__ import annotations

import json
from typing import Any

from django.utils import timezone

from core.timefmt import iso_millis_of_ms
from integrations.bots.kinds import Reply, Turn, call_json
from integrations.bots.kinds.replies import replies_parse
from webhooks.signing import delivery_headers


def turn_body(turn: Turn) -> dict[str, Any]:
    """The registered-webhook body of the turn's last message, and the turn (`bot`)."""
    last = turn.items[-1]
    return {
        "event": "message",
        "session_id": str(turn.bot.session_id),
        "data": last["data"],
        "timestamp": iso_millis_of_ms(last["eventMs"]),
        "bot": {
            "id": turn.bot.pk,
            "name": turn.bot.name,
            "chat": turn.chat,
            "text": turn.text,
            "messages": [item["id"] for item in turn.items],
        },
    }


def answer(turn: Turn) -> list[Reply]:
    settings = turn.bot.settings
    body = json.dumps(turn_body(turn), ensure_ascii=False, separators=(",", ":")).encode()
    headers = delivery_headers(
        secret=turn.bot.secret, msg_id=f"bot_{turn.job_id}", body=body, sent_at=timezone.now()
    )
    headers["Accept"] = "application/json"
    _, parsed = call_json(
        "POST", settings["url"], body=body, headers=headers, timeout=float(settings.get("timeoutSeconds", 10))
    )
    return replies_parse(parsed)
