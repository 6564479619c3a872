"""GET /metrics: the token, counters of every web process added up, rate limits counted, and the Grafana
dashboard in docs/ built only on names the endpoint exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.web.observe_support import WebServer, family_names, samples, value

pytestmark = pytest.mark.django_db(transaction=True)
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"


@pytest.fixture
def start_web():
    servers: list[WebServer] = []

    def start(**env: str) -> WebServer:
        server = WebServer(env).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def test_metrics_are_open_without_a_token_and_ask_for_the_bearer_token_once_one_is_set(client, settings):
    settings.PONTE_METRICS_TOKEN = ""
    open_reply = client.get("/metrics")
    assert open_reply.status_code == 200
    assert open_reply["Content-Type"].startswith("text/plain")
    assert "ponte_webhook_queue_depth" in open_reply.content.decode()

    settings.PONTE_METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics").headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="s3cret-scrape-token").status_code == 401
    good = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")
    assert good.status_code == 200
    assert "ponte_bonds_offers" in good.content.decode()


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
@pytest.mark.parametrize("gap", [" ", "  ", "\t"])
def test_the_metrics_token_is_taken_whatever_the_case_of_the_bearer_scheme(client, settings, scheme, gap):
    settings.PONTE_METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"{scheme}{gap}s3cret-scrape-token").status_code == 200
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"{scheme}{gap}wrong").status_code == 401


@pytest.mark.parametrize(
    "value", ["Basic s3cret-scrape-token", "Bearers3cret-scrape-token", "Bearer ", "bearer"]
)
def test_the_metrics_token_is_refused_under_another_scheme_or_without_one(client, settings, value):
    settings.PONTE_METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION=value).status_code == 401


def test_an_open_metrics_endpoint_is_reported_when_debug_is_off(settings):
    from core.metrics import metrics_token_check

    settings.DEBUG, settings.PONTE_METRICS_TOKEN = False, ""
    assert [w.id for w in metrics_token_check()] == ["ponte.W010"]
    settings.PONTE_METRICS_TOKEN = "s3cret"
    assert metrics_token_check() == []


def test_requests_served_by_two_web_processes_add_up_in_the_scrape_of_either(start_web):
    first, second = start_web(), start_web()
    before = first.scrape()
    ok = {"interface": "other", "method": "GET", "status": "200"}
    for _ in range(3):
        assert first.request("GET", "/healthz")[0] == 200
    for _ in range(4):
        assert second.request("GET", "/healthz")[0] == 200
    assert second.request("GET", "/api/me")[0] == 401
    mcp_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    mcp_headers = {"Accept": "application/json, text/event-stream"}
    assert second.request("POST", "/bonds/mcp", body=mcp_call, headers=mcp_headers)[0] != 0

    for after in (first.scrape(), second.scrape()):
        # The scrape of `first` itself is a request of `other` too, counted after its reply.
        moved = value(after, "ponte_http_requests_total", **ok) - value(
            before, "ponte_http_requests_total", **ok
        )
        assert moved >= 7
        assert (
            value(after, "ponte_http_requests_total", interface="messaging", method="GET", status="401") >= 1
        )
        assert any(
            name == "ponte_http_requests_total" and dict(labels)["interface"] == "mcp"
            for name, labels in samples(after)
        )
        assert value(after, "ponte_http_request_duration_seconds_count", interface="other") >= 7


def test_429_replies_are_counted_as_rate_limited_per_interface(start_web):
    web = start_web(PONTE_ANONYMOUS_REQUESTS_PER_MINUTE="2")
    before = value(web.scrape(), "ponte_rate_limited_total", interface="messaging")
    statuses = [web.request("GET", "/api/me")[0] for _ in range(4)]
    assert 429 in statuses
    after = value(web.scrape(), "ponte_rate_limited_total", interface="messaging")
    assert after - before == statuses.count(429)


def test_every_metric_the_grafana_dashboard_uses_is_exported(start_web):
    web = start_web()
    web.request("GET", "/healthz")
    exported = family_names(web.scrape())
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [
        target["expr"]
        for panel in dashboard["panels"]
        for target in panel.get("targets", ())
        if "expr" in target
    ]
    assert expressions, "the dashboard has no queries"
    used = {name for expr in expressions for name in re.findall(r"\bponte_[a-z_]+\b", expr)}
    assert used, "the dashboard names no Ponte metric"
    assert used <= exported, f"not exported: {sorted(used - exported)}"
    # Every metric the issue asks for has a panel.
    for name in (
        "ponte_http_requests_total",
        "ponte_http_request_duration_seconds_bucket",
        "ponte_webhook_deliveries_total",
        "ponte_webhook_delivery_seconds_bucket",
        "ponte_webhook_queue_depth",
        "ponte_webhook_dead_letters",
        "ponte_engine_sessions",
        "ponte_rate_limited_total",
        "ponte_bonds_refresh_last_success_timestamp_seconds",
        "ponte_bonds_offers",
    ):
        assert name in used, name
