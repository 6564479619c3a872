"""Gateway session list and pairing, with the gateway's `{"error": text}` shape."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_gateway_lists_the_sessions(admin_client, make_session, connected_session):
    idle = make_session("idle")["id"]
    live = str(connected_session("live").pk)
    body = admin_client.get("/gateway/sessions").json()
    assert [s["id"] for s in body["sessions"]] == [idle, live]
    connected = admin_client.get("/gateway/sessions?status=connected").json()["sessions"]
    assert [s["id"] for s in connected] == [live]


def test_gateway_status_filter_understands_qrcode(admin_client, make_session):
    waiting = make_session()["id"]
    admin_client.post(f"/gateway/sessions/{waiting}/pair/qr")
    assert [s["id"] for s in admin_client.get("/gateway/sessions?status=QRCODE").json()["sessions"]] == [
        waiting
    ]


def test_gateway_errors_use_the_gateway_shape(admin_client):
    assert APIClient().get("/gateway/sessions").json() == {"error": "Unauthorized"}
    missing = admin_client.post("/gateway/sessions/00000000-0000-0000-0000-000000000000/pair/qr")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Session not found"}
    assert admin_client.get("/gateway/sessions?status=nope").status_code == 400


def test_gateway_pairs_by_qr_code(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.post(f"/gateway/sessions/{session_id}/pair/qr")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "qr"
    assert body["qrCode"].startswith("2@")
    assert body["qrCodeImage"].startswith("data:image/png;base64,")
    scanned = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan").json()
    assert scanned["status"] == "connected"
    again = admin_client.post(f"/gateway/sessions/{session_id}/pair/qr")
    assert again.status_code == 409
    assert again.json() == {"error": "Conflict"}


def test_gateway_pairs_by_phone_code(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.post(
        f"/gateway/sessions/{session_id}/pair/phone", {"phoneNumber": "5511912345678"}, format="json"
    )
    assert response.status_code == 200
    code = response.json()["pairingCode"]
    paired = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/scan", {"pairingCode": code}, format="json"
    )
    assert paired.json()["phone"] == "5511912345678"


def test_gateway_refuses_an_invalid_phone_number(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.post(
        f"/gateway/sessions/{session_id}/pair/phone", {"phoneNumber": "+55 11 9"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"error": "Invalid phone number"}


def test_a_viewer_lists_but_cannot_pair_on_the_gateway(keyed_client, viewer_key, make_session):
    session_id = make_session()["id"]
    client = keyed_client(viewer_key)
    assert client.get("/gateway/sessions").status_code == 200
    refused = client.post(f"/gateway/sessions/{session_id}/pair/qr")
    assert refused.status_code == 403
    assert refused.json() == {"error": "Forbidden"}
