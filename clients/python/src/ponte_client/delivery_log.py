"""The gateway's delivery log: a webhook's deliveries, one delivery with its attempts, resends, dead
letters, and the event catalogue; their typed results, their operations, and the resources `Client`
(`deliveries`, `dead_letters`) and `AsyncClient` expose. Lists are paged like the others (`Page`);
`iterate()` walks every page."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar

import httpx

from ponte_client._http import Op
from ponte_client.events import EventName
from ponte_client.models import Page

T = TypeVar("T")
JSON = dict[str, Any]
DeliveryStatus = Literal["pending", "sending", "delivered", "failed", "dead"]
Moment = datetime | str  # a datetime (sent as ISO 8601) or the ISO 8601 text itself


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _iso(value: Moment | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Delivery:
    """One event to one webhook; `event_id` is the webhook-id header the receiver got."""

    id: int
    event_id: str
    event: str
    webhook_id: str | None  # None once the webhook was deleted
    session_id: str
    status: DeliveryStatus
    attempts: int
    max_attempts: int
    last_status_code: int | None
    last_error: str | None
    created_at: datetime | None
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    dead_at: datetime | None
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> Delivery:
        attempts = data["attempts"]
        return cls(
            id=data["id"],
            event_id=data["eventId"],
            event=data["event"],
            webhook_id=data.get("webhookId"),
            session_id=data["sessionId"],
            status=data["status"],
            attempts=attempts if isinstance(attempts, int) else len(attempts),
            max_attempts=data["maxAttempts"],
            last_status_code=data.get("lastStatusCode"),
            last_error=data.get("lastError"),
            created_at=_dt(data.get("createdAt")),
            next_attempt_at=_dt(data.get("nextAttemptAt")),
            delivered_at=_dt(data.get("deliveredAt")),
            dead_at=_dt(data.get("deadAt")),
            raw=data,
        )


@dataclass(frozen=True)
class DeliveryAttempt:
    number: int
    at: datetime | None
    status_code: int | None  # None: no answer (timeout, connection error)
    duration_ms: int
    error: str | None
    response_body: str  # the first 1,024 bytes of the answer
    outcome: str  # delivered, retry, dead

    @classmethod
    def from_json(cls, data: JSON) -> DeliveryAttempt:
        return cls(
            data["number"],
            _dt(data.get("at")),
            data.get("statusCode"),
            data["durationMs"],
            data.get("error"),
            data.get("responseBody", ""),
            data["outcome"],
        )


@dataclass(frozen=True)
class DeliveryDetail:
    """A delivery with the body POSTed and every attempt, oldest first."""

    delivery: Delivery
    payload: JSON
    attempts: list[DeliveryAttempt]

    @classmethod
    def from_json(cls, data: JSON) -> DeliveryDetail:
        attempts = [DeliveryAttempt.from_json(item) for item in data["attempts"]]
        return cls(Delivery.from_json(data), data["payload"], attempts)


@dataclass(frozen=True)
class Resent:
    queued: int
    skipped: int  # of the ids given: not found, not dead letters, or their webhook deleted or disabled


@dataclass(frozen=True)
class EventType:
    name: EventName
    description: str
    aliases: list[str]
    schema: JSON  # JSON Schema (2020-12) of the body POSTed
    example: JSON

    @classmethod
    def from_json(cls, data: JSON) -> EventType:
        return cls(data["name"], data["description"], list(data["aliases"]), data["schema"], data["example"])


def _page(response: httpx.Response) -> Page[Delivery]:
    body = response.json()
    meta = body["meta"]
    items = [Delivery.from_json(item) for item in body["data"]]
    return Page(items, meta["total"], meta["page"], meta["limit"], meta["totalPages"])


# --- operations -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeliveryFilters:
    """What a webhook's delivery list is narrowed to (None: not narrowed)."""

    status: DeliveryStatus | None = None
    event: str | None = None  # a name or an alias
    since: Moment | None = None  # created at or after
    until: Moment | None = None  # created before

    def params(self) -> JSON:
        return {
            "status": self.status,
            "event": self.event,
            "since": _iso(self.since),
            "until": _iso(self.until),
        }


def deliveries_list(webhook_id: str, filters: DeliveryFilters, page: int, limit: int) -> Op[Page[Delivery]]:
    params = {**filters.params(), "page": page, "limit": limit}
    return Op("GET", f"/gateway/webhooks/{webhook_id}/deliveries", _page, params=params)


def deliveries_get(delivery_id: int | str) -> Op[DeliveryDetail]:
    return Op("GET", f"/gateway/deliveries/{delivery_id}", lambda r: DeliveryDetail.from_json(r.json()))


def deliveries_resend(delivery_id: int | str) -> Op[Delivery]:
    return Op("POST", f"/gateway/deliveries/{delivery_id}/resend", lambda r: Delivery.from_json(r.json()))


def dead_letters_list(
    session_id: str | None, webhook_id: str | None, page: int, limit: int
) -> Op[Page[Delivery]]:
    params = {"sessionId": session_id, "webhookId": webhook_id, "page": page, "limit": limit}
    return Op("GET", "/gateway/dead-letters", _page, params=params)


def dead_letters_resend(
    ids: Sequence[int] | None, webhook_id: str | None, since: Moment | None
) -> Op[Resent]:
    body: JSON = {"ids": list(ids)} if ids is not None else {"webhookId": webhook_id, "since": _iso(since)}
    return Op("POST", "/gateway/dead-letters/resend", lambda r: Resent(**r.json()), json=body)


def event_types() -> Op[list[EventType]]:
    return Op("GET", "/gateway/event-types", lambda r: [EventType.from_json(item) for item in r.json()])


# --- resources --------------------------------------------------------------------------------------


def _every_page(fetch: Callable[[int], Page[T]]) -> Iterator[T]:
    page = 1
    while True:
        current = fetch(page)
        yield from current.items
        if page >= current.total_pages:
            return
        page += 1


async def _every_page_async(fetch: Callable[[int], Awaitable[Page[T]]]) -> AsyncIterator[T]:
    page = 1
    while True:
        current = await fetch(page)
        for item in current.items:
            yield item
        if page >= current.total_pages:
            return
        page += 1


class Deliveries:
    """`client.deliveries`: a webhook's deliveries, narrowed by `status`, `event` (a name or an alias),
    `since` and `until` (a datetime or ISO 8601 text; creation time)."""

    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def list(
        self,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        event: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        page: int = 1,
        limit: int = 20,
    ) -> Page[Delivery]:
        """A webhook's deliveries, newest first."""
        filters = DeliveryFilters(status, event, since, until)
        return self._run(deliveries_list(webhook_id, filters, page, limit))

    def iterate(
        self,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        event: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        limit: int = 100,
    ) -> Iterator[Delivery]:
        """Every delivery matching the filters, page after page."""
        filters = DeliveryFilters(status, event, since, until)
        return _every_page(lambda page: self._run(deliveries_list(webhook_id, filters, page, limit)))

    def get(self, delivery_id: int | str) -> DeliveryDetail:
        """By id, or by the webhook-id (`msg_…`) a receiver got."""
        return self._run(deliveries_get(delivery_id))

    def resend(self, delivery_id: int | str) -> Delivery:
        """One more attempt of a delivered or dead delivery: the current URL, the same webhook-id."""
        return self._run(deliveries_resend(delivery_id))


class DeadLetters:
    """`client.dead_letters`: deliveries whose every attempt failed, kept 7 days."""

    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def list(
        self, *, session_id: str | None = None, webhook_id: str | None = None, page: int = 1, limit: int = 20
    ) -> Page[Delivery]:
        return self._run(dead_letters_list(session_id, webhook_id, page, limit))

    def iterate(self, *, session_id: str | None = None, webhook_id: str | None = None) -> Iterator[Delivery]:
        return _every_page(
            lambda page: self.list(session_id=session_id, webhook_id=webhook_id, page=page, limit=100)
        )

    def resend(
        self, ids: Sequence[int] | None = None, *, webhook_id: str | None = None, since: Moment | None = None
    ) -> Resent:
        """Resend these dead letters, or one webhook's since a moment."""
        return self._run(dead_letters_resend(ids, webhook_id, since))


class AsyncDeliveries:
    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def list(
        self,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        event: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        page: int = 1,
        limit: int = 20,
    ) -> Page[Delivery]:
        filters = DeliveryFilters(status, event, since, until)
        return await self._run(deliveries_list(webhook_id, filters, page, limit))

    def iterate(
        self,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        event: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        limit: int = 100,
    ) -> AsyncIterator[Delivery]:
        filters = DeliveryFilters(status, event, since, until)
        return _every_page_async(lambda page: self._run(deliveries_list(webhook_id, filters, page, limit)))

    async def get(self, delivery_id: int | str) -> DeliveryDetail:
        return await self._run(deliveries_get(delivery_id))

    async def resend(self, delivery_id: int | str) -> Delivery:
        return await self._run(deliveries_resend(delivery_id))


class AsyncDeadLetters:
    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def list(
        self, *, session_id: str | None = None, webhook_id: str | None = None, page: int = 1, limit: int = 20
    ) -> Page[Delivery]:
        return await self._run(dead_letters_list(session_id, webhook_id, page, limit))

    def iterate(
        self, *, session_id: str | None = None, webhook_id: str | None = None
    ) -> AsyncIterator[Delivery]:
        return _every_page_async(
            lambda page: self.list(session_id=session_id, webhook_id=webhook_id, page=page, limit=100)
        )

    async def resend(
        self, ids: Sequence[int] | None = None, *, webhook_id: str | None = None, since: Moment | None = None
    ) -> Resent:
        return await self._run(dead_letters_resend(ids, webhook_id, since))
