"""Helpers of the sender-depth tests (rotation, custom headers, test events, replay, auto-disable):
register through the gateway, and send what is due in this process, as a worker's drain does."""

from __future__ import annotations

from typing import Any

from webhooks.models import Delivery
from webhooks.outbox import drains as outbox


def register(client: Any, session: Any, url: str, **fields: Any) -> dict[str, Any]:
    body = {"sessionId": str(session.id), "url": url, "events": ["message"], **fields}
    reply = client.post("/gateway/webhooks", body, format="json")
    assert reply.status_code == 200, reply.content
    return reply.json()


def patch(client: Any, webhook_id: str, **fields: Any) -> Any:
    return client.patch(f"/gateway/webhooks/{webhook_id}", fields, format="json")


def send_due() -> None:
    """Drain every target that has something waiting (retries run at once: the tests set the delay
    scale to 0), until nothing is left to send."""
    for _ in range(50):
        waiting = Delivery.objects.filter(status__in=["pending", "failed"]).values_list("pk", "target_url")
        if not waiting:
            return
        for pk, url in {url: (pk, url) for pk, url in waiting}.values():
            outbox.delivery_attempt(delivery_id=pk, target_url=url)
    raise AssertionError("deliveries still waiting after 50 rounds")
