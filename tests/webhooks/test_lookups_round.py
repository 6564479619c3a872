"""An event handed to its sinks is one round (core.rounds): the outbox's, the Chatwoot mirror's and the
bots' kept lookups (webhooks.lookups) check their versions in the shared cache with one MGET, not one
GET each, and a write made during the round is still seen by the next event."""

from __future__ import annotations

import pytest
import redis

from messaging.engines.events import event_from_data
from messaging.services.events import engine_event_receive
from tests.messaging.contract import CUSTOMER
from webhooks import lookups
from webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shared(redis_server, settings) -> redis.Redis:
    """The cache on a Redis of the test's own, whose command counts the test reads."""
    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": redis_server.url}}
    assert lookups.shared_cache()
    return redis.Redis.from_url(redis_server.url)


def _inbound(session, text: str) -> None:
    data = {"id": f"3EB0{text.upper()}", "chat": f"{CUSTOMER}@s.whatsapp.net"}
    data |= {"sender": data["chat"], "type": "text", "text": text, "timestamp": 1, "fromMe": False}
    engine_event_receive(str(session.pk), event_from_data("message", data))


def _calls(direct: redis.Redis) -> dict[str, int]:
    stats = direct.info("commandstats")
    return {name.removeprefix("cmdstat_"): entry["calls"] for name, entry in stats.items()}


def test_an_event_checks_every_kept_lookup_with_one_round_trip(session, shared, allow_loopback):
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/a", events=["message"]
    )
    _inbound(session, "warm")  # the lookups keep the session's targets, integration and bots
    shared.config_resetstat()
    _inbound(session, "counted")
    calls = _calls(shared)
    assert calls.get("mget") == 1, calls
    assert "get" not in calls, calls  # no version read one by one


def test_a_write_during_an_event_is_seen_by_the_next_one(session, shared, allow_loopback):
    hook = Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/old", events=["message"]
    )
    _inbound(session, "first")
    Webhook.objects.filter(pk=hook.pk).update(url="http://127.0.0.1:9/new")
    _inbound(session, "second")
    urls = Delivery.objects.filter(webhook=hook).order_by("pk").values_list("target_url", flat=True)
    assert list(urls) == ["http://127.0.0.1:9/old", "http://127.0.0.1:9/new"]
