"""What a live socket may see, and the outbox reads it needs: sync code, run on the web process's pool.

The key and the sessions are checked exactly as the REST API checks them (accounts' key lookup, the
messaging selectors' session scoping), so a key sees on the socket what it may read through `/api`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.db import close_old_connections

from accounts.models import ApiKey
from accounts.netaddr import client_address_of
from accounts.services import api_key_authenticate
from core.errors import ApplicationError, ValidationFailed
from messaging.models import Session
from messaging.selectors import session_get
from webhooks.catalogue import ALIASES, EVENTS, TEST_EVENT, canonical_event
from webhooks.live.broadcast import LiveEvent
from webhooks.models import Event

T = TypeVar("T")

# Close codes: 4000 + the HTTP status the REST API would answer, and two of our own.
BAD_REQUEST = 4400
UNAUTHORIZED = 4401
FORBIDDEN = 4403
NOT_FOUND = 4404
SINCE_GONE = 4410
TOO_SLOW = 4008
TRY_AGAIN_LATER = 1013


class Refused(Exception):
    """The socket is closed with `code`; `reason` is also sent first as an error frame."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class Request:
    """What the client asked for (query parameters and headers of the upgrade request)."""

    key: str | None
    session: str | None
    events: str | None
    since: str | None
    remote_addr: str
    forwarded_for: str


Position = tuple[datetime, uuid.UUID]  # (created_at, id): the outbox's order


@dataclass(frozen=True)
class Grant:
    """A checked request: whose events, of which sessions (None: every session of the account, those
    created later included) and names (None: all), and where a replay starts."""

    key_plaintext: str
    client_ip: str
    account_id: str
    sessions: frozenset[str] | None
    events: frozenset[str] | None
    since: Position | None

    def wants(self, event: LiveEvent) -> bool:
        return (
            event.account_id == self.account_id
            and (self.sessions is None or event.session_id in self.sessions)
            and (self.events is None or event.name in self.events)
        )


def in_db_thread(function: Callable[..., T]) -> Callable[..., T]:
    """Run on a pool thread as a request would: stale connections closed before and after."""

    def run(*args: Any, **kwargs: Any) -> T:
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return run


def _events_filter(raw: str | None) -> frozenset[str] | None:
    if raw is None or raw.strip() in ("", "*"):
        return None
    names: set[str] = set()
    unknown: list[str] = []
    for name in raw.split(","):
        if not name.strip():
            continue
        canonical = canonical_event(name)
        if canonical is None:
            unknown.append(name.strip())
        else:
            names.add(canonical)
    if unknown:
        raise Refused(
            BAD_REQUEST,
            f"events: unknown event {', '.join(map(repr, unknown))}; use one of {', '.join(EVENTS)} "
            f"(aliases: {', '.join(f'{a}={c}' for a, c in ALIASES.items())}) or *",
        )
    return frozenset(names) or None


def _key(request: Request, client_ip: str) -> ApiKey:
    if not request.key:
        raise Refused(
            UNAUTHORIZED,
            "Unauthorized: send the API key in the X-API-Key header or the apiKey query parameter",
        )
    try:
        return api_key_authenticate(plaintext=request.key, client_ip=client_ip)
    except ApplicationError as error:
        raise Refused(4000 + error.status_code, error.message) from None


def _sessions(key: ApiKey, raw: str | None) -> frozenset[str] | None:
    if raw is None or not raw.strip():
        raise Refused(BAD_REQUEST, "sessionId: give a session id, or * for every session the key may use")
    if raw.strip() == "*":
        if not key.allowed_sessions:
            return None
        return frozenset(str(s) for s in key.allowed_sessions)
    try:
        return frozenset({str(session_get(key=key, session_id=raw.strip()).pk)})
    except ApplicationError as error:
        raise Refused(4000 + error.status_code, error.message) from None


def _since(
    raw: str | None, account_id: str, sessions: frozenset[str] | None
) -> tuple[datetime, uuid.UUID] | None:
    if raw is None or not raw.strip():
        return None
    try:
        pk = uuid.UUID(raw.strip())
    except ValueError:
        raise Refused(BAD_REQUEST, f"since: {raw.strip()!r} is not an event id (the id of a frame)") from None
    found = Event.objects.filter(pk=pk, session__account_id=account_id)
    if sessions is not None:
        found = found.filter(session_id__in=sessions)
    created_at = found.values_list("created_at", flat=True).first()
    if created_at is None:
        raise Refused(
            SINCE_GONE,
            f"since: event {pk} is not in the outbox for these sessions; reconnect without since",
        )
    return created_at, pk


@in_db_thread
def grant(request: Request) -> Grant:
    """Check a connection request, or raise Refused with the close code and reason."""
    client_ip = client_address_of(remote_addr=request.remote_addr, forwarded_for=request.forwarded_for)
    events = _events_filter(request.events)
    key = _key(request, client_ip)
    sessions = _sessions(key, request.session)
    account_id = str(key.account_id)
    return Grant(
        key_plaintext=request.key or "",
        client_ip=client_ip,
        account_id=account_id,
        sessions=sessions,
        events=events,
        since=_since(request.since, account_id, sessions),
    )


@in_db_thread
def key_still_valid(grant: Grant) -> bool:
    """Whether the connection's key still authenticates (not revoked, not expired)."""
    try:
        api_key_authenticate(plaintext=grant.key_plaintext, client_ip=grant.client_ip)
    except (ApplicationError, ValidationFailed):
        return False
    return True


def _live(rows: list[dict[str, Any]]) -> list[LiveEvent]:
    return [
        LiveEvent(
            id=str(row["id"]),
            session_id=str(row["session_id"]),
            account_id=str(row["session__account_id"]),
            name=row["name"],
            data=row["data"],
            chat=row["chat"],
            sequence=row["sequence"],
            event_ms=row["event_ms"],
            created_at=row["created_at"].isoformat(),
        )
        for row in rows
    ]


_FIELDS = (
    "id",
    "session_id",
    "session__account_id",
    "name",
    "data",
    "chat",
    "sequence",
    "event_ms",
    "created_at",
)


@in_db_thread
def replay_page(grant: Grant, after: Position, *, limit: int) -> list[LiveEvent]:
    """The next `limit` events the grant sees, recorded after `after` (created_at, id), oldest first."""
    created_at, pk = after
    # The test event is for one webhook only (webhooks.registered.test_event), not the account's stream.
    events = Event.objects.filter(session__account_id=grant.account_id).exclude(name=TEST_EVENT)
    if grant.sessions is not None:
        events = events.filter(session_id__in=grant.sessions)
    if grant.events is not None:
        events = events.filter(name__in=grant.events)
    later = events.filter(created_at__gt=created_at) | events.filter(created_at=created_at, pk__gt=pk)
    return _live(list(later.order_by("created_at", "id").values(*_FIELDS)[:limit]))


@in_db_thread
def recent_events(accounts: set[str], since: datetime, *, limit: int) -> list[LiveEvent]:
    """The accounts' events recorded at or after `since`, oldest first (the embedded default's poll;
    per session, along the (session, created_at) index)."""
    sessions = Session.objects.filter(account_id__in=accounts).values("pk")
    rows = (
        Event.objects.filter(session_id__in=sessions, created_at__gte=since)
        .exclude(name=TEST_EVENT)
        .order_by("created_at", "id")
        .values(*_FIELDS)[:limit]
    )
    return _live(list(rows))
