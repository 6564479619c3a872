"""Per-key limits from the plan, per-endpoint limits, headers on every reply, 429 under concurrency."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView
from accounts.permissions import IsViewer

pytestmark = pytest.mark.django_db


def in_one_window(run: Callable[[], list[HttpResponse]]) -> list[HttpResponse]:
    """The plan's limit counts in fixed one-minute windows, so calls that straddle a window's end start
    counting again (a test then saw 200 where 429 was due). `run` makes its calls with a key of its own;
    when its replies name more than one window end (X-RateLimit-Reset), it runs again."""
    for _ in range(3):
        replies = run()
        if len({reply["X-RateLimit-Reset"] for reply in replies}) == 1:
            return replies
    raise AssertionError("three runs in a row straddled the end of a rate-limit window")


def test_every_reply_carries_the_rate_limit_headers(keyed_client, make_account, make_key) -> None:
    def run() -> list[HttpResponse]:
        client = keyed_client(make_key("viewer", for_account=make_account("Free")))
        return [client.get("/api/me"), client.get("/api/me")]

    response, second = in_one_window(run)
    assert response["X-RateLimit-Limit"] == "40"
    assert response["X-RateLimit-Remaining"] == "39"
    assert int(response["X-RateLimit-Reset"]) >= int(time.time()) - 1  # the window may end this very second
    assert second["X-RateLimit-Remaining"] == "38"


def test_error_replies_carry_the_headers_too(api_client) -> None:
    response = api_client.get("/api/me", HTTP_X_API_KEY="ponte_badbadba_nope")
    assert response.status_code == 401
    assert "X-RateLimit-Remaining" in response


def test_gateway_replies_carry_the_headers(keyed_client, viewer_key) -> None:
    assert "X-RateLimit-Limit" in keyed_client(viewer_key).get("/gateway/me")


def test_exceeding_the_plan_limit_answers_429_with_retry_after(keyed_client, make_account, make_key) -> None:
    def run() -> list[HttpResponse]:
        client = keyed_client(make_key("viewer", for_account=make_account("Free")))
        return [client.get("/api/me") for _ in range(42)]

    replies = in_one_window(run)
    statuses = [reply.status_code for reply in replies[:41]]
    assert statuses.count(200) == 40 and statuses[-1] == 429
    refused = replies[-1]
    body = refused.json()
    assert body["statusCode"] == 429 and body["error"] == "TOO_MANY_REQUESTS"
    assert body["retryAfter"] == int(refused["Retry-After"]) >= 1
    assert refused["X-RateLimit-Remaining"] == "0"


def test_the_gateway_429_uses_its_own_text(keyed_client, make_account, make_key) -> None:
    def run() -> list[HttpResponse]:
        client = keyed_client(make_key("viewer", for_account=make_account("Free")))
        return [client.get("/gateway/me") for _ in range(41)]

    refused = in_one_window(run)[-1]
    assert refused.status_code == 429 and refused.json() == {"error": "Rate limit exceeded"}
    assert "Retry-After" in refused


def test_limits_are_counted_per_key(keyed_client, make_account, make_key) -> None:
    account = make_account("Free")
    second = make_key("viewer", for_account=account)

    def run() -> list[HttpResponse]:
        client = keyed_client(make_key("viewer", for_account=account))
        return [client.get("/api/me") for _ in range(41)]

    assert in_one_window(run)[-1].status_code == 429
    assert keyed_client(second).get("/api/me").status_code == 200


def test_an_unlimited_plan_reports_the_safety_ceiling(keyed_client, make_key, settings) -> None:
    settings.PONTE_UNLIMITED_REQUESTS_PER_MINUTE = 6000
    assert keyed_client(make_key("viewer")).get("/api/me")["X-RateLimit-Limit"] == "6000"


class _StrictApi(KeyedAPIView):
    permission_classes = [IsViewer]
    rate_limits = {"GET": "2/m"}

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


def test_a_stricter_endpoint_limit_wins_and_is_reported(rf, make_key) -> None:
    key = make_key("viewer")
    view = _StrictApi.as_view()
    replies = [view(rf.get("/api/strict", HTTP_X_API_KEY=key)) for _ in range(3)]
    assert [r.status_code for r in replies] == [200, 200, 429]
    assert replies[0]["X-RateLimit-Limit"] == "2" and replies[1]["X-RateLimit-Remaining"] == "0"


def test_concurrent_requests_never_exceed_the_limit(live_server, make_account, make_key) -> None:
    key = make_key("viewer", for_account=make_account("Free"))

    def get() -> requests.Response:
        return requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": key}, timeout=30)

    # Windows are fixed: a burst across a window's end would be counted in two windows. Start the burst
    # in a window with time to spare, and count from what the probe says is left of it.
    probe = get()
    seconds_left = int(probe.headers["X-RateLimit-Reset"]) - time.time()
    if seconds_left < 20:
        time.sleep(max(0.0, seconds_left) + 1)
        probe = get()
    remaining = int(probe.headers["X-RateLimit-Remaining"])
    assert remaining == 39

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(lambda _: get().status_code, range(50)))
    assert statuses.count(200) == remaining
    assert statuses.count(429) == 50 - remaining
