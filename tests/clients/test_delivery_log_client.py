"""ponte_client's delivery log and event catalogue against a live Ponte (sync and async): a webhook's
deliveries page by page, one delivery's attempts, resends, dead letters; and its typed event bodies,
checked against the server's JSON Schemas so the two cannot drift."""

from __future__ import annotations

import asyncio
import inspect
import typing
from datetime import timedelta

import pytest
from django.utils import timezone
from ponte_client import (
    EVENT_NAMES,
    AsyncClient,
    ConflictError,
    Delivery,
    NotFoundError,
    PermissionDeniedError,
)
from ponte_client import delivery_log as client_log
from ponte_client.events import BODY_TYPES

from messaging.models import Session
from tests.webhooks.sender_depth import send_due
from tests.webhooks.support import Receiver
from webhooks.event_types import event_types
from webhooks.services import emit


@pytest.fixture
def receiver():
    receiver = Receiver(statuses=[500, 200, 500, 200, 200]).start()
    yield receiver
    receiver.stop()


@pytest.fixture
def logged(client, account, receiver, settings):
    """A webhook with five deliveries sent: two dead letters (retryCount 1), three delivered."""
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0
    session = Session.objects.create(account=account, name="log", status=Session.Status.CONNECTED)
    hook = client.webhooks.create(str(session.id), receiver.url, ["message"], retry_count=1)
    for n in range(5):
        emit(session_id=session.id, name="message", data={"id": f"M{n}", "text": f"text {n}"})
        send_due()
    return hook


def test_deliveries_list_in_pages_iterate_and_read_one_with_its_attempts(client, logged, receiver) -> None:
    page = client.deliveries.list(logged.id, limit=2)
    assert (page.total, page.total_pages, len(page.items)) == (5, 3, 2)
    assert all(isinstance(row, Delivery) for row in page.items)
    every = list(client.deliveries.iterate(logged.id, limit=2))
    assert [row.event_id for row in every] == [r.headers["webhook-id"] for r in reversed(receiver.received)]
    assert [row.status for row in every] == ["delivered", "delivered", "dead", "delivered", "dead"]
    assert [row.id for row in client.deliveries.list(logged.id, status="dead").items] == [
        every[2].id,
        every[4].id,
    ]
    assert client.deliveries.list(logged.id, since=timezone.now() + timedelta(minutes=1)).total == 0
    detail = client.deliveries.get(every[4].event_id)
    assert detail.delivery.id == every[4].id and detail.payload["data"]["id"] == "M0"
    (attempt,) = detail.attempts
    assert (attempt.status_code, attempt.outcome, attempt.response_body) == (500, "dead", "receiver says no")


def test_resends_and_dead_letters_through_the_client(client, logged, receiver, viewer_key, ponte) -> None:
    dead = client.dead_letters.list(webhook_id=logged.id)
    assert dead.total == 2 and {row.status for row in dead.items} == {"dead"}
    assert client.deliveries.resend(dead.items[0].id).status == "pending"
    with pytest.raises(ConflictError) as caught:
        client.deliveries.resend(dead.items[0].id)  # now on its way
    assert caught.value.error == "Delivery in progress"
    assert client.dead_letters.resend([dead.items[1].id, 10**9]) == client_log.Resent(queued=1, skipped=1)
    send_due()
    assert client.dead_letters.list().total == 0 and len(receiver.received) == 7
    with pytest.raises(NotFoundError):
        client.deliveries.get(10**9)
    from ponte_client import Client

    with Client(base_url=ponte, api_key=viewer_key) as viewer:
        assert viewer.deliveries.list(logged.id).total == 5
        with pytest.raises(PermissionDeniedError):
            viewer.dead_letters.resend(webhook_id=logged.id, since=timezone.now() - timedelta(hours=1))


def test_the_async_client_walks_the_same_pages(logged, ponte, admin_key) -> None:
    async def scenario() -> list[int]:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as client:
            rows = [row.id async for row in client.deliveries.iterate(logged.id, limit=2)]
            dead = [row.id async for row in client.dead_letters.iterate(webhook_id=logged.id)]
            assert len(dead) == 2 and set(dead) <= set(rows)
            assert [t.name for t in await client.webhooks.event_types()] == list(EVENT_NAMES)
            return rows

    assert len(asyncio.run(scenario())) == 5


def test_event_types_come_typed(client) -> None:
    types = client.webhooks.event_types()
    assert [t.name for t in types] == list(EVENT_NAMES)
    message = types[0]
    assert message.aliases == ["messages", "message.received"] and message.example["event"] == "message"


@pytest.mark.parametrize("sync_name", ["Deliveries", "DeadLetters"])
def test_every_delivery_log_method_has_an_async_twin(sync_name) -> None:
    def methods(cls: type) -> dict[str, list[inspect.Parameter]]:
        # Parameters alike; the returns differ as they must (an iterator, an async iterator).
        members = [(n, m) for n, m in vars(cls).items() if callable(m) and not n.startswith("_")]
        return {n: list(inspect.signature(m).parameters.values()) for n, m in members}

    assert methods(getattr(client_log, sync_name)) == methods(getattr(client_log, "Async" + sync_name))


def _check_typed_dict(typed: type, schema: dict, where: str) -> None:
    """The TypedDict's keys and their being required match the JSON Schema; nested objects too."""
    hints = typing.get_type_hints(typed)
    assert set(hints) == set(schema["properties"]), where
    assert typed.__required_keys__ == set(schema["required"]), where
    for key, sub in schema["properties"].items():
        nested = sub.get("items", sub) if sub.get("type") == "array" else sub
        if nested.get("type") == "object" and nested.get("properties"):
            inner = hints[key]
            for arg in typing.get_args(inner) or (inner,):  # list[X] or X
                _check_typed_dict(arg, nested, f"{where}.{key}")
        if "enum" in sub:
            assert set(typing.get_args(hints[key])) == set(sub["enum"]), f"{where}.{key}"


def test_the_clients_typed_bodies_match_the_servers_schemas() -> None:
    entries = event_types()
    assert [entry["name"] for entry in entries] == list(EVENT_NAMES) == list(BODY_TYPES)
    for entry in entries:
        body = BODY_TYPES[entry["name"]]
        hints = typing.get_type_hints(body)
        assert typing.get_args(hints["event"]) == (entry["name"],)
        assert set(hints) == set(entry["schema"]["properties"])
        _check_typed_dict(hints["data"], entry["schema"]["properties"]["data"], entry["name"])
