"""Redis stops under a running Ponte web process and comes back (docs/operations.md, "Redis outages").

The web process is a real uvicorn subprocess whose REDIS_URL names a private redis-server the test kills
and restarts; a real Celery worker on the same Redis delivers the webhooks. While Redis is down every
interface answers (no 5xx but a documented 503), rate limits still refuse (per process, cut to their
degraded share), the event emitted meanwhile waits in the database outbox, and /readyz names the cache and
the broker. Once Redis is back everything recovers by itself and the waiting event is delivered.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from messaging.models import Session
from tests.faults import WebServer
from tests.webhooks.support import LOOPBACK, wait_for, worker_database_url
from webhooks.models import Delivery

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# What each call of _calls() answers, with Redis and without.
EXPECTED = {
    "me": 200,
    "sessions": 200,
    "gateway": 200,
    "instance": 200,
    "bonds preview": 200,
    "bonds keyed": 200,
    "inbound": 201,
}
ANONYMOUS_PER_MINUTE = 40  # degraded share 0.25: 10 per process while Redis is down


@pytest.fixture
def web(redis_server) -> Iterator[WebServer]:
    server = WebServer(
        {
            "DATABASE_URL": worker_database_url(),
            "REDIS_URL": redis_server.url,
            "PONTE_WEBHOOK_ALLOW_NETWORKS": LOOPBACK,
            "PONTE_ANONYMOUS_REQUESTS_PER_MINUTE": str(ANONYMOUS_PER_MINUTE),
            "PONTE_REDIS_RETRY_SECONDS": "1",
            "DB_CONN_MAX_AGE": "0",
        }
    ).start()
    yield server
    server.stop()


def _connected_session(web: WebServer, key: str) -> Session:
    keyed = {"X-API-Key": key}
    created = web.call("POST", "/api/sessions", body={"name": "main"}, headers=keyed)
    assert created.status == 201, created.body
    session_id = created.body["id"]
    assert web.call("POST", f"/api/sessions/{session_id}/connect", headers=keyed).status == 200
    scanned = web.call(
        "POST", f"/api/sandbox/sessions/{session_id}/scan", body={"phone": "5511999990001"}, headers=keyed
    )
    assert scanned.status == 200, scanned.body
    session = Session.objects.get(pk=session_id)
    # Stored as a digest: only the creating reply shows the instance key in clear.
    session.instance_key = created.body["instanceKey"]
    return session


def _calls(web: WebServer, key: str, session: Session) -> dict[str, object]:
    """One call of each kind a client makes: reads on every mount, a write that emits an event."""
    keyed = {"X-API-Key": key}
    return {
        "me": web.call("GET", "/api/me", headers=keyed),
        "sessions": web.call("GET", "/api/sessions", headers=keyed),
        "gateway": web.call("GET", "/gateway/webhooks", headers=keyed),
        "instance": web.call("GET", f"/instances/{session.instance_key}/instance"),
        "bonds preview": web.call("GET", "/bonds/api/"),
        "bonds keyed": web.call("GET", "/bonds/api/", headers={"Authorization": f"Bearer {key}"}),
        "inbound": web.call(
            "POST",
            f"/api/sandbox/sessions/{session.id}/inbound",
            body={"event": "message", "from": "5511988880002", "text": "during the outage"},
            headers=keyed,
        ),
    }


def test_the_api_answers_through_a_redis_outage_and_recovers_when_it_returns(
    redis_server, web, admin_key, account, start_worker, make_receiver, allow_loopback
):
    receiver = make_receiver()
    session = _connected_session(web, admin_key)
    # Through the web process, as a customer would: the write bumps the lookups' version in the Redis
    # that process shares (webhooks/lookups.py), which this test process does not use.
    hook = {"sessionId": str(session.id), "url": receiver.url, "events": ["message"], "secret": "k"}
    created = web.call("POST", "/gateway/webhooks", body=hook, headers={"x-api-key": admin_key})
    assert created.status == 200, created.body
    worker = start_worker(env={"REDIS_URL": redis_server.url})

    before = _calls(web, admin_key, session)
    assert {name: reply.status for name, reply in before.items()} == EXPECTED
    wait_for(lambda: len(receiver.received) >= 1, what="the event sent while Redis was up")

    redis_server.stop()
    during = _calls(web, admin_key, session)
    statuses = {name: reply.status for name, reply in during.items()}
    assert all(status < 500 for status in statuses.values()), {
        n: (r.status, r.body) for n, r in during.items()
    }
    assert statuses == EXPECTED
    assert during["bonds keyed"].body["response"]["status"] in {"ok", "no_subscription"}
    again = _calls(web, admin_key, session)  # the breakers are open now: nothing waits on Redis
    assert {reply.status for reply in again.values()} <= {200, 201}
    # The events emitted while the broker was down are safe in the outbox, waiting.
    waiting = Delivery.objects.exclude(status=Delivery.Status.DELIVERED)
    assert waiting.count() == 2

    for phase, replies in (("before", before), ("during", during), ("during, again", again)):
        print(phase, {name: f"{reply.seconds * 1000:.0f} ms" for name, reply in replies.items()})
    # Rate limits hold per process at their degraded share: never unlimited, never an error.
    anonymous = [web.call("GET", "/api/me") for _ in range(ANONYMOUS_PER_MINUTE // 4 + 2)]
    assert {reply.status for reply in anonymous} <= {401, 429}
    assert anonymous[-1].status == 429 and "Retry-After" in anonymous[-1].headers
    assert anonymous[0].headers["X-RateLimit-Limit"] == str(ANONYMOUS_PER_MINUTE // 4)
    assert anonymous[-1].body["statusCode"] == 429

    ready = web.call("GET", "/readyz")
    assert ready.status == 200 and ready.body["status"] == "degraded"
    assert ready.body["checks"]["database"] == "ok"
    assert ready.body["checks"]["cache"].startswith("error")
    assert ready.body["checks"]["broker"].startswith("error")

    redis_server.start()
    # The same worker rides the outage out (core/kombu_redis.py; tests/webhooks/test_worker_redis_stop.py).
    assert worker.process is not None and worker.process.poll() is None, worker.output()[-4000:]
    wait_for(lambda: web.call("GET", "/readyz").body["status"] == "ok", timeout=30, what="/readyz ok again")
    after = _calls(web, admin_key, session)
    assert {name: reply.status for name, reply in after.items()} == EXPECTED
    print("after", {name: f"{reply.seconds * 1000:.0f} ms" for name, reply in after.items()})
    # Shared counters again, at the full limit.
    assert web.call("GET", "/api/me").headers["X-RateLimit-Limit"] == str(ANONYMOUS_PER_MINUTE)

    # Every event reaches the receiver, the one emitted during the outage included: nothing half-written.
    try:
        wait_for(
            lambda: not Delivery.objects.exclude(status=Delivery.Status.DELIVERED).exists(),
            timeout=60,
            what="every delivery after Redis came back",
        )
    except AssertionError:
        rows = list(Delivery.objects.values_list("pk", "status", "next_attempt_at"))
        raise AssertionError(
            f"{rows}\nworker:\n{worker.output()[-4000:]}\nweb:\n{web.output()[-3000:]}"
        ) from None
    assert Delivery.objects.count() == 4
    ids = {request.headers["x-webhook-id"] for request in receiver.received}
    assert ids == set(Delivery.objects.values_list("dispatch_id", flat=True))
