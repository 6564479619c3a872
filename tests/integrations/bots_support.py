"""Helpers of the bots' tests: a bot made through the API, and its jobs run in this process as the
worker's task runs them (tests/integrations/test_bots_worker.py runs them on a real Celery worker)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from integrations.bots import jobs
from integrations.bots.models import BotJob
from messaging.models import Message, Session

HOOK_SECRET = "bot-signing-secret-0123456789"


def bot_create(
    client: APIClient, session: Session, kind: str, settings: dict[str, Any], **extra: Any
) -> dict:
    body = {"sessionId": str(session.pk), "name": f"{kind} bot", "kind": kind, "settings": settings, **extra}
    body.setdefault("rules", {}).setdefault("debounceSeconds", 0)
    if kind == "http":
        body.setdefault("secret", HOOK_SECRET)
    response = client.post("/api/bots", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def drain_bots(*, rounds: int = 10, due_now: bool = False) -> int:
    """Run every due bot job, chat by chat in order (`due_now`: the debounce window is over)."""
    ran = 0
    for _ in range(rounds):
        waiting = BotJob.objects.filter(status__in=[BotJob.Status.PENDING, BotJob.Status.FAILED])
        if due_now:
            waiting.update(next_attempt_at=timezone.now())
        groups = set(waiting.filter(next_attempt_at__lte=timezone.now()).values_list("bot_id", "chat"))
        if not groups:
            return ran
        for bot_id, chat in groups:
            ran += jobs.QUEUE.drain((bot_id, chat))
    return ran


def sent_texts(session: Session, chat: str) -> list[str]:
    """What the session sent in the chat, oldest first."""
    rows = Message.objects.filter(session=session, chat=chat, from_me=True).order_by("timestamp", "id")
    return [row.content.get("text") or row.content.get("caption") or row.type for row in rows]
