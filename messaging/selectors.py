"""Reads of the messaging app."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from accounts.models import ApiKey
from core.compiled import CompiledGet
from core.errors import Forbidden, ValidationFailed
from messaging.errors import SessionNotFound
from messaging.models import Message, Session

# The legacy spelling `QRCODE` (older clients send it) is understood wherever a client sends a status.
_STATUS_SPELLINGS = {
    "qr": Session.Status.QR,
    "qrcode": Session.Status.QR,
    "connected": Session.Status.CONNECTED,
    "disconnected": Session.Status.DISCONNECTED,
}


def status_parse(value: str) -> str:
    status = _STATUS_SPELLINGS.get((value or "").strip().lower())
    if status is None:
        raise ValidationFailed(f"status: {value!r} is not one of disconnected, qr (also QRCODE), connected.")
    return status


# Read on every send and inbound event: compiled once (core.compiled, docs/decisions/0037).
_SESSION_OF_ACCOUNT = CompiledGet(Session, "pk", "account_id")


def session_find(*, key: ApiKey, session_id: Any) -> Session | None:
    """The caller's session with this id, or None (unknown, malformed, another account's). Its account
    is the key's own (resolved with its plan when the key was): no join, no second read."""
    try:
        pk = uuid.UUID(str(session_id))
    except ValueError:
        return None
    session = _SESSION_OF_ACCOUNT.get(pk=pk, account_id=key.account_id)
    if session is not None:
        session.account = key.account
    return session


def session_allowed(*, key: ApiKey, session_id: Any, session: Session | None) -> Session:
    """`session` (as session_find found it) for the call naming `session_id`: 404 SESSION_NOT_FOUND
    when it was not found, 403 when the key is restricted to other sessions."""
    if session is None:
        try:
            raise SessionNotFound(f"Session {uuid.UUID(str(session_id))} not found.")
        except ValueError:
            raise SessionNotFound(f"Session {session_id!r} not found.") from None
    if not key.allows_session(session.pk):
        raise Forbidden("This API key is not allowed to use this session.")
    return session


def session_get(*, key: ApiKey, session_id: Any) -> Session:
    """The caller's session: 404 SESSION_NOT_FOUND for unknown, malformed or other accounts' ids;
    403 when the key is restricted to other sessions."""
    return session_allowed(
        key=key, session_id=session_id, session=session_find(key=key, session_id=session_id)
    )


def session_list(*, key: ApiKey, status: str | None = None) -> QuerySet[Session]:
    sessions = Session.objects.filter(account_id=key.account_id).order_by("created_at", "id")
    if key.allowed_sessions:
        sessions = sessions.filter(pk__in=[s for s in key.allowed_sessions if _is_uuid(s)])
    if status:
        sessions = sessions.filter(status=status)
    return sessions


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def message_history() -> QuerySet[Message]:
    """Messages newest first (the history list narrows it to one session with its filters)."""
    return Message.objects.order_by("-timestamp", "-id")


def message_list(*, session: Session, chat: str = "") -> QuerySet[Message]:
    messages = message_history().filter(session=session)
    return messages.filter(chat=chat) if chat else messages


@dataclass(frozen=True)
class Page:
    items: list
    total: int
    page: int
    limit: int

    @property
    def meta(self) -> dict[str, int]:
        return {
            "total": self.total,
            "page": self.page,
            "limit": self.limit,
            "totalPages": math.ceil(self.total / self.limit),
        }


def paginate(queryset: QuerySet, *, page: int, limit: int) -> Page:
    total = queryset.count()
    start = (page - 1) * limit
    return Page(items=list(queryset[start : start + limit]), total=total, page=page, limit=limit)
