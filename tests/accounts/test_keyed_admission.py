"""A keyed call whose key this process holds is checked and counted in one round trip to Redis
(accounts/admission.py, issue 44 item 2); anything the held copy cannot decide goes the usual way, with
the same limits, headers and 429 bodies."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from redis.connection import Connection
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api import MeApi
from accounts.api_bases import KeyedAPIView
from accounts.keycache import token_cache_key
from accounts.models import ApiKey
from accounts.permissions import IsViewer
from tests.faults import RedisServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(settings) -> Iterator[RedisServer]:
    """The default cache on a private Redis (whatever the suite runs on), as production has it."""
    server = RedisServer().start()
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.RedisCache", "LOCATION": server.url, "KEY_PREFIX": "admission"}
    }
    yield server
    server.stop()


class RoundTrips:
    """Counts the requests sent to Redis: a pipeline is one, however many commands it holds."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> RoundTrips:
        original = Connection.send_packed_command

        def counted(conn: Connection, *args, **kwargs):
            self.count += 1
            return original(conn, *args, **kwargs)

        self._patch = mock.patch.object(Connection, "send_packed_command", counted)
        self._patch.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._patch.stop()


def _key_row(plaintext: str) -> ApiKey:
    return ApiKey.objects.get(prefix=plaintext.split("_")[1])


def test_a_held_key_is_checked_and_counted_in_one_round_trip_and_no_query(
    redis_cache, keyed_client, make_account, make_key
) -> None:
    client = keyed_client(make_key("viewer", for_account=make_account("Free")))
    first = client.get("/api/me")  # reads the row and sets the key's token
    with RoundTrips() as trips, CaptureQueriesContext(connection) as queries:
        second = client.get("/api/me")

    assert first.status_code == second.status_code == 200
    assert trips.count == 1
    statements = [query["sql"] for query in queries.captured_queries]
    assert [sql for sql in statements if not sql.startswith(("SAVEPOINT", "RELEASE"))] == []
    assert second["X-RateLimit-Limit"] == "40"
    assert int(second["X-RateLimit-Remaining"]) == int(first["X-RateLimit-Remaining"]) - 1


class _StrictApi(KeyedAPIView):
    permission_classes = [IsViewer]
    rate_limits = {"GET": "2/m"}

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


def test_an_endpoint_limit_is_counted_in_the_same_round_trip(redis_cache, rf, make_key) -> None:
    key = make_key("viewer")
    view = _StrictApi.as_view()
    view(rf.get("/api/strict", HTTP_X_API_KEY=key))
    with RoundTrips() as trips:
        second = view(rf.get("/api/strict", HTTP_X_API_KEY=key))
    third = view(rf.get("/api/strict", HTTP_X_API_KEY=key))

    assert trips.count == 1
    assert second.status_code == 200 and second["X-RateLimit-Limit"] == "2"
    assert second["X-RateLimit-Remaining"] == "0"
    assert third.status_code == 429 and third.data["retryAfter"] >= 1


def test_a_key_revoked_by_another_process_is_refused_and_counted_against_the_address(
    redis_cache, keyed_client, make_key, settings
) -> None:
    plaintext = make_key("viewer")
    client = keyed_client(plaintext)
    assert client.get("/api/me").status_code == 200
    # What another process's revocation leaves this one: the row changed, the token gone, the copy here.
    ApiKey.objects.filter(prefix=_key_row(plaintext).prefix).update(revoked_at=timezone.now())
    cache.delete(token_cache_key(_key_row(plaintext).prefix))

    refused = client.get("/api/me")
    assert refused.status_code == 401
    assert refused.json()["error"] == "Unauthorized"
    assert refused["X-RateLimit-Limit"] == str(settings.PONTE_ANONYMOUS_REQUESTS_PER_MINUTE)


def test_a_wrong_secret_for_a_held_prefix_is_not_counted_against_the_key(
    redis_cache, keyed_client, make_account, make_key
) -> None:
    for _ in range(3):  # fixed one-minute windows: run again if the calls straddled a window's end
        plaintext = make_key("viewer", for_account=make_account("Free"))
        before = keyed_client(plaintext).get("/api/me")
        forged = keyed_client(plaintext[:-4] + "xxxx").get("/api/me")
        after = keyed_client(plaintext).get("/api/me")
        if before["X-RateLimit-Reset"] == after["X-RateLimit-Reset"]:
            break

    assert forged.status_code == 401
    assert forged["X-RateLimit-Limit"] == "60"  # the address's limit, not the key's plan
    assert int(after["X-RateLimit-Remaining"]) == int(before["X-RateLimit-Remaining"]) - 1


def test_the_plan_limit_still_answers_429_with_retry_after_on_the_one_round_trip(
    redis_cache, keyed_client, make_account, make_key
) -> None:
    client = keyed_client(make_key("viewer", for_account=make_account("Free")))
    replies = [client.get("/api/me") for _ in range(45)]
    refused = [reply for reply in replies if reply.status_code == 429]

    assert refused  # 40 a minute: at most one window end can fall inside 45 quick calls
    body = refused[0].json()
    assert body["statusCode"] == 429 and body["error"] == "TOO_MANY_REQUESTS"
    assert body["retryAfter"] == int(refused[0]["Retry-After"]) >= 1
    assert refused[0]["X-RateLimit-Remaining"] == "0"


def test_me_answers_what_its_serializer_describes(keyed_client, make_key) -> None:
    plaintext = make_key(
        "operator",
        name="ci",
        allowed_ips=["10.0.0.0/8", "127.0.0.1"],
        allowed_sessions=["0b0c2f34-9a43-4f6e-8a4e-0d4c4a1f6f11"],
        expires_at=timezone.now() + timedelta(days=3),
    )
    client = keyed_client(plaintext)
    client.get("/api/me")  # sets last_used_at
    body = client.get("/api/me").json()

    assert body == MeApi.OutputSerializer(_key_row(plaintext)).data
    assert body["key"]["allowed_ips"] == ["10.0.0.0/8", "127.0.0.1/32"]
