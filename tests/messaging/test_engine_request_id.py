"""The request id crosses the engine bus: deliveries of the events an engine process reports while running
a request's command name that request (core/logs.py), as they do with the in-process sandbox."""

from __future__ import annotations

from django.conf import settings

from core.logs import request_id_var
from tests.webhooks.support import LOOPBACK
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create

# RemoteEngine needs PostgreSQL (E004): the test with engine processes exists only on it (never skipped).
POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")

if POSTGRES:

    def test_deliveries_of_events_an_engine_process_reports_name_the_request_of_the_command(
        start_engine, admin_client, account, settings
    ):
        settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "a"}, format="json").json()["id"]
        webhook_create(
            account=account, session_id=session_id, url="http://127.0.0.1:9/hook", events=["qr", "connected"]
        )
        token = request_id_var.set("req-through-the-bus")
        try:
            assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 200
        finally:
            request_id_var.reset(token)
        deliveries = Delivery.objects.filter(session_id=session_id)
        assert deliveries.exists()
        assert {d.request_id for d in deliveries} == {"req-through-the-bus"}


def test_deliveries_of_events_the_in_process_sandbox_reports_name_the_request(
    admin_client, account, settings, db
):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    session_id = admin_client.post("/api/sessions", {"name": "a"}, format="json").json()["id"]
    webhook_create(account=account, session_id=session_id, url="http://127.0.0.1:9/hook", events=["qr"])
    token = request_id_var.set("req-in-process")
    try:
        assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 200
    finally:
        request_id_var.reset(token)
    assert {d.request_id for d in Delivery.objects.filter(session_id=session_id)} == {"req-in-process"}
