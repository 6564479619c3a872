"""The webhook resources of both clients: `Client.webhooks` and `Client.instance` (`Webhooks`,
`Instance`) and their awaited twins on `AsyncClient` (`AsyncWebhooks`, `AsyncInstance`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ponte_client import ops
from ponte_client._http import Op
from ponte_client.delivery_log import EventType, event_types
from ponte_client.models import Webhook

JSON = dict[str, Any]


class _SyncResource:
    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run


class _AsyncResource:
    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run


class Webhooks(_SyncResource):
    def create(
        self,
        session_id: str,
        url: str,
        events: Sequence[str],
        *,
        secret: str | None = None,
        retry_count: int | None = None,
        headers: dict[str, str] | None = None,
        rate_limit: int | None = None,
        retry_schedule: str | Sequence[int] | None = None,
        body_filter: dict[str, Any] | None = None,
        ordering: str | None = None,
    ) -> Webhook:
        """`rate_limit`: deliveries per second at most (1 to 1,000); None: no limit. `retry_schedule`:
        "seed" (the default), "extended" or 1 to 20 delays in seconds between attempts. `body_filter`:
        conditions on the delivered body (the gateway's `filter`, e.g. {"data.fromMe": False}). `ordering`:
        "parallel" (the default) or "fifo" (a chat's next event waits until its previous one is finished)."""
        return self._run(
            ops.webhooks_create(
                session_id,
                url,
                events,
                secret,
                retry_count,
                headers,
                rate_limit,
                retry_schedule,
                body_filter,
                ordering,
            )
        )

    def list(self, *, session_id: str | None = None) -> list[Webhook]:
        return self._run(ops.webhooks_list(session_id))

    def get(self, webhook_id: str) -> Webhook:
        return self._run(ops.webhooks_get(webhook_id))

    def update(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        secret: str | None = None,
        retry_count: int | None = None,
        headers: dict[str, str] | None = None,
        status: str | None = None,
        rate_limit: int | None = None,
        retry_schedule: str | Sequence[int] | None = None,
        body_filter: dict[str, Any] | None = None,
        ordering: str | None = None,
    ) -> Webhook:
        """`status="active"` enables a disabled webhook again; `headers={}` removes the custom headers;
        `rate_limit=NO_RATE_LIMIT` (0) removes the rate limit; `body_filter={}` removes the filter."""
        changes = {
            "url": url,
            "events": list(events) if events is not None else None,
            "secret": secret,
            "retry_count": retry_count,
            "headers": headers,
            "status": status,
            "rate_limit": rate_limit,
            "retry_schedule": list(retry_schedule)
            if retry_schedule is not None and not isinstance(retry_schedule, str)
            else retry_schedule,
            "body_filter": body_filter,
            "ordering": ordering,
        }
        return self._run(ops.webhooks_update(webhook_id, changes))

    def delete(self, webhook_id: str) -> None:
        self._run(ops.webhooks_delete(webhook_id))

    def rotate_secret(
        self, webhook_id: str, *, secret: str | None = None, overlap_seconds: int | None = None
    ) -> JSON:
        """A new secret (generated when not given), the old one signing too for the overlap:
        `{"webhook": record, "secret": the new secret, shown this once}`."""
        return self._run(ops.webhooks_rotate_secret(webhook_id, secret, overlap_seconds))

    def send_test(self, webhook_id: str) -> JSON:
        """Queue one `webhook.test` event to this webhook: `{"event", "webhookId"}`."""
        return self._run(ops.webhooks_test(webhook_id))

    def replay(
        self, webhook_id: str, *, since: str, until: str | None = None, only_failed: bool = False
    ) -> int:
        """Send the window's deliveries again to the webhook's current URL; how many were queued."""
        return self._run(ops.webhooks_replay(webhook_id, since, until, only_failed))

    def event_types(self) -> list[EventType]:
        """Every event a webhook can receive: aliases, the JSON Schema of its body, an example."""
        return self._run(event_types())


class Instance(_SyncResource):
    """Instance webhooks, addressed by a session's instance key (no API key needed)."""

    def config(self, instance_key: str) -> JSON:
        return self._run(ops.instance_config(instance_key))

    def update_config(self, instance_key: str, **fields: Any) -> JSON:
        """Fields as the API names them: allowWebhook, webhookMessage, webhookFormat..."""
        return self._run(ops.instance_update(instance_key, fields))

    def statistics(self, instance_key: str) -> JSON:
        return self._run(ops.instance_statistics(instance_key))


class AsyncWebhooks(_AsyncResource):
    async def create(
        self,
        session_id: str,
        url: str,
        events: Sequence[str],
        *,
        secret: str | None = None,
        retry_count: int | None = None,
        headers: dict[str, str] | None = None,
        rate_limit: int | None = None,
        retry_schedule: str | Sequence[int] | None = None,
        body_filter: dict[str, Any] | None = None,
        ordering: str | None = None,
    ) -> Webhook:
        """`rate_limit`: deliveries per second at most (1 to 1,000); None: no limit. `retry_schedule`:
        "seed" (the default), "extended" or 1 to 20 delays in seconds between attempts. `body_filter`:
        conditions on the delivered body (the gateway's `filter`, e.g. {"data.fromMe": False}). `ordering`:
        "parallel" (the default) or "fifo" (a chat's next event waits until its previous one is finished)."""
        return await self._run(
            ops.webhooks_create(
                session_id,
                url,
                events,
                secret,
                retry_count,
                headers,
                rate_limit,
                retry_schedule,
                body_filter,
                ordering,
            )
        )

    async def list(self, *, session_id: str | None = None) -> list[Webhook]:
        return await self._run(ops.webhooks_list(session_id))

    async def get(self, webhook_id: str) -> Webhook:
        return await self._run(ops.webhooks_get(webhook_id))

    async def update(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        secret: str | None = None,
        retry_count: int | None = None,
        headers: dict[str, str] | None = None,
        status: str | None = None,
        rate_limit: int | None = None,
        retry_schedule: str | Sequence[int] | None = None,
        body_filter: dict[str, Any] | None = None,
        ordering: str | None = None,
    ) -> Webhook:
        """`status="active"` enables a disabled webhook again; `headers={}` removes the custom headers;
        `rate_limit=NO_RATE_LIMIT` (0) removes the rate limit; `body_filter={}` removes the filter."""
        changes = {
            "url": url,
            "events": list(events) if events is not None else None,
            "secret": secret,
            "retry_count": retry_count,
            "headers": headers,
            "status": status,
            "rate_limit": rate_limit,
            "retry_schedule": list(retry_schedule)
            if retry_schedule is not None and not isinstance(retry_schedule, str)
            else retry_schedule,
            "body_filter": body_filter,
            "ordering": ordering,
        }
        return await self._run(ops.webhooks_update(webhook_id, changes))

    async def delete(self, webhook_id: str) -> None:
        await self._run(ops.webhooks_delete(webhook_id))

    async def rotate_secret(
        self, webhook_id: str, *, secret: str | None = None, overlap_seconds: int | None = None
    ) -> JSON:
        """A new secret (generated when not given), the old one signing too for the overlap:
        `{"webhook": record, "secret": the new secret, shown this once}`."""
        return await self._run(ops.webhooks_rotate_secret(webhook_id, secret, overlap_seconds))

    async def send_test(self, webhook_id: str) -> JSON:
        """Queue one `webhook.test` event to this webhook: `{"event", "webhookId"}`."""
        return await self._run(ops.webhooks_test(webhook_id))

    async def replay(
        self, webhook_id: str, *, since: str, until: str | None = None, only_failed: bool = False
    ) -> int:
        """Send the window's deliveries again to the webhook's current URL; how many were queued."""
        return await self._run(ops.webhooks_replay(webhook_id, since, until, only_failed))

    async def event_types(self) -> list[EventType]:
        return await self._run(event_types())


class AsyncInstance(_AsyncResource):
    """Instance webhooks, addressed by a session's instance key (no API key needed)."""

    async def config(self, instance_key: str) -> JSON:
        return await self._run(ops.instance_config(instance_key))

    async def update_config(self, instance_key: str, **fields: Any) -> JSON:
        """Fields as the API names them: allowWebhook, webhookMessage, webhookFormat..."""
        return await self._run(ops.instance_update(instance_key, fields))

    async def statistics(self, instance_key: str) -> JSON:
        return await self._run(ops.instance_statistics(instance_key))
