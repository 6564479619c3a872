"""Connection flow on the sandbox engine: connect, QR formats and expiry, pairing, scan, logout, events."""

from __future__ import annotations

import base64
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from messaging.models import SandboxDevice, Session
from webhooks.models import Event

pytestmark = pytest.mark.django_db

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def events(session_id, name=None):
    found = Event.objects.filter(session_id=session_id).order_by("created_at", "sequence")
    if name:
        found = found.filter(name=name)
    return list(found)


def test_connect_moves_a_disconnected_session_to_qr_with_the_connection_flow_reply(
    admin_client, make_session
):
    session_id = make_session()["id"]
    response = admin_client.post(f"/api/sessions/{session_id}/connect")
    assert response.status_code == 200
    body = response.json()
    assert body["sessionId"] == session_id
    assert body["status"] == "qr"
    assert body["qrCode"].startswith("2@")
    assert body["qrCode"].count(",") == 3
    assert body["message"]
    assert body["expiresAt"]
    session = Session.objects.get(pk=session_id)
    assert session.status == "qr"
    assert session.qr_code == body["qrCode"]
    qr_events = events(session_id, "qr")
    assert len(qr_events) == 1
    assert qr_events[0].data["qrCode"] == body["qrCode"]


def test_connecting_again_while_waiting_returns_the_same_code_without_a_new_event(admin_client, make_session):
    session_id = make_session()["id"]
    first = admin_client.post(f"/api/sessions/{session_id}/connect").json()
    second = admin_client.post(f"/api/sessions/{session_id}/connect").json()
    assert first["qrCode"] == second["qrCode"]
    assert len(events(session_id, "qr")) == 1


def test_connect_is_deterministic_for_a_session(admin_client, make_session):
    session_id = make_session()["id"]
    code = admin_client.post(f"/api/sessions/{session_id}/connect").json()["qrCode"]
    admin_client.post(f"/api/sessions/{session_id}/logout")
    SandboxDevice.objects.filter(session_id=session_id).delete()
    assert admin_client.post(f"/api/sessions/{session_id}/connect").json()["qrCode"] == code


def test_qrcode_base64_has_a_png_data_uri(admin_client, make_session):
    session_id = make_session()["id"]
    code = admin_client.post(f"/api/sessions/{session_id}/connect").json()["qrCode"]
    for query in ("", "?format=base64"):
        body = admin_client.get(f"/api/sessions/{session_id}/qrcode{query}").json()
        assert body["qrCode"] == code
        prefix = "data:image/png;base64,"
        assert body["qrCodeImage"].startswith(prefix)
        assert base64.b64decode(body["qrCodeImage"][len(prefix) :]).startswith(PNG_SIGNATURE)
        assert body["expiresAt"]


def test_qrcode_raw_is_json_with_the_code_string_and_its_expiry(admin_client, make_session):
    """Every reply is JSON except the QR image (seed 001): raw is the bare code, without the PNG."""
    session_id = make_session()["id"]
    connected = admin_client.post(f"/api/sessions/{session_id}/connect").json()
    response = admin_client.get(f"/api/sessions/{session_id}/qrcode?format=raw")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body == {"qrCode": connected["qrCode"], "expiresAt": connected["expiresAt"]}
    assert datetime.fromisoformat(body["expiresAt"]).tzinfo is not None
    assert "X-RateLimit-Limit" in response


def test_qrcode_image_is_a_png_body(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    response = admin_client.get(f"/api/sessions/{session_id}/qrcode?format=image")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(PNG_SIGNATURE)


def test_the_png_is_the_qr_rendering_of_the_current_code(admin_client, make_session):
    """The image is the QR code of the current code string (segno renders it byte for byte)."""
    import io

    import segno

    session_id = make_session()["id"]
    code = admin_client.post(f"/api/sessions/{session_id}/connect").json()["qrCode"]
    png = admin_client.get(f"/api/sessions/{session_id}/qrcode?format=image").content
    expected = io.BytesIO()
    segno.make_qr(code, error="m").save(expected, kind="png", scale=6, border=4)
    assert png == expected.getvalue()


def test_unknown_qr_format_is_a_validation_error(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    response = admin_client.get(f"/api/sessions/{session_id}/qrcode?format=svg")
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


def test_qrcode_of_a_disconnected_session_is_refused(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.get(f"/api/sessions/{session_id}/qrcode")
    assert response.status_code == 400
    assert response.json()["error"] == "SESSION_NOT_IN_QR_STATE"
    assert "connect" in response.json()["message"]


def test_an_expired_code_is_replaced_with_a_new_expiry_and_a_qr_event(admin_client, make_session):
    session_id = make_session()["id"]
    first = admin_client.post(f"/api/sessions/{session_id}/connect").json()
    SandboxDevice.objects.filter(session_id=session_id).update(
        qr_expires_at=timezone.now() - timedelta(seconds=1)
    )
    second = admin_client.get(f"/api/sessions/{session_id}/qrcode").json()
    assert second["qrCode"] != first["qrCode"]
    assert second["expiresAt"] > first["expiresAt"]
    assert [e.data["qrCode"] for e in events(session_id, "qr")] == [first["qrCode"], second["qrCode"]]
    assert Session.objects.get(pk=session_id).qr_code == second["qrCode"]


def test_a_valid_code_lives_about_sixty_seconds(admin_client, make_session):
    session_id = make_session()["id"]
    before = timezone.now()
    admin_client.post(f"/api/sessions/{session_id}/connect")
    expires = Session.objects.get(pk=session_id).qr_expires_at
    assert timedelta(seconds=59) <= expires - before <= timedelta(seconds=61)


def test_scan_connects_and_emits_connected(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    response = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/scan", {"phone": "5511988887777"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "connected"
    assert body["jid"] == "5511988887777@s.whatsapp.net"
    assert body["phone"] == "5511988887777"
    connected = events(session_id, "connected")
    assert len(connected) == 1
    assert connected[0].data["jid"] == "5511988887777@s.whatsapp.net"
    assert Session.objects.get(pk=session_id).qr_code == ""


def test_scan_without_a_phone_derives_one(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    body = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan").json()
    assert body["status"] == "connected"
    assert body["phone"].startswith("55119") and len(body["phone"]) == 13


@pytest.mark.parametrize("body", ['""', "0", "false", "[]", "null"])
def test_a_scan_body_that_is_no_object_is_refused_even_when_empty_or_false(admin_client, make_session, body):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    response = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/scan", body, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"
    assert Session.objects.get(pk=session_id).status == "qr"


def test_scanning_an_expired_code_is_refused(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    SandboxDevice.objects.filter(session_id=session_id).update(
        qr_expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan")
    assert response.status_code == 400
    assert "expired" in response.json()["message"]
    assert Session.objects.get(pk=session_id).status == "qr"


def test_scan_of_a_disconnected_session_is_refused(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan")
    assert response.status_code == 400
    assert response.json()["error"] == "SESSION_NOT_IN_QR_STATE"
    assert not events(session_id)


def test_connecting_a_connected_session_is_a_no_op(admin_client, connected_session):
    session = connected_session()
    before = len(events(session.pk))
    body = admin_client.post(f"/api/sessions/{session.pk}/connect").json()
    assert body["status"] == "connected"
    assert body["qrCode"] is None
    assert "already connected" in body["message"]
    assert len(events(session.pk)) == before


def test_qrcode_of_a_connected_session_is_refused(admin_client, connected_session):
    session = connected_session()
    response = admin_client.get(f"/api/sessions/{session.pk}/qrcode?format=image")
    assert response.status_code == 400
    assert response.json()["error"] == "SESSION_NOT_IN_QR_STATE"


def test_scanning_a_connected_session_is_refused(admin_client, connected_session):
    session = connected_session()
    response = admin_client.post(f"/api/sandbox/sessions/{session.pk}/scan")
    assert response.status_code == 400
    assert response.json()["error"] == "SESSION_NOT_IN_QR_STATE"


def test_logout_removes_credentials_and_a_new_scan_is_needed(admin_client, connected_session):
    session = connected_session()
    response = admin_client.post(f"/api/sessions/{session.pk}/logout")
    assert response.json() == {"success": True, "message": "Logged out; stored credentials removed."}
    session.refresh_from_db()
    assert session.status == "disconnected"
    assert session.jid == ""
    assert SandboxDevice.objects.get(session_id=session.pk).credentials is None
    assert events(session.pk, "disconnected")[0].data == {"reason": "logout"}
    # Sending is refused now, and the QR endpoint wants connect first.
    assert admin_client.get(f"/api/sessions/{session.pk}/qrcode").status_code == 400
    reconnect = admin_client.post(f"/api/sessions/{session.pk}/connect").json()
    assert reconnect["status"] == "qr"
    assert admin_client.post(f"/api/sandbox/sessions/{session.pk}/scan").json()["status"] == "connected"


def test_logout_while_waiting_for_a_scan_disconnects(admin_client, make_session):
    session_id = make_session()["id"]
    admin_client.post(f"/api/sessions/{session_id}/connect")
    admin_client.post(f"/api/sessions/{session_id}/logout")
    assert Session.objects.get(pk=session_id).status == "disconnected"
    assert admin_client.get(f"/api/sessions/{session_id}/qrcode").json()["error"] == "SESSION_NOT_IN_QR_STATE"


def test_logout_of_a_disconnected_session_emits_nothing(admin_client, make_session):
    session_id = make_session()["id"]
    assert admin_client.post(f"/api/sessions/{session_id}/logout").status_code == 200
    assert not events(session_id)


def test_pairing_by_phone_code(admin_client, make_session):
    session_id = make_session()["id"]
    response = admin_client.post(
        f"/api/sessions/{session_id}/pairing-code", {"phoneNumber": "5521977776666"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "qr"
    assert len(body["pairingCode"]) == 9 and body["pairingCode"][4] == "-"
    wrong = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/scan", {"pairingCode": "AAAA-AAAA"}, format="json"
    )
    assert wrong.status_code == 400
    paired = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/scan", {"pairingCode": body["pairingCode"]}, format="json"
    ).json()
    assert paired["status"] == "connected"
    assert paired["phone"] == "5521977776666"


@pytest.mark.parametrize("phone", ["+5521977776666", "55 21 97777", "abc", ""])
def test_pairing_code_needs_a_valid_number(admin_client, make_session, phone):
    session_id = make_session()["id"]
    response = admin_client.post(
        f"/api/sessions/{session_id}/pairing-code", {"phoneNumber": phone}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


def test_pairing_code_of_a_connected_session_is_a_conflict(admin_client, connected_session):
    session = connected_session()
    response = admin_client.post(
        f"/api/sessions/{session.pk}/pairing-code", {"phoneNumber": "5521977776666"}, format="json"
    )
    assert response.status_code == 409


def test_viewers_cannot_connect_logout_or_see_the_qr(keyed_client, viewer_key, make_session):
    session_id = make_session()["id"]
    client = keyed_client(viewer_key)
    assert client.post(f"/api/sessions/{session_id}/connect").status_code == 403
    assert client.get(f"/api/sessions/{session_id}/qrcode").status_code == 403
    assert client.post(f"/api/sessions/{session_id}/logout").status_code == 403
    assert client.post(f"/api/sandbox/sessions/{session_id}/scan").status_code == 403


def test_operators_can_connect_and_pair(keyed_client, operator_key, make_session):
    session_id = make_session()["id"]
    client = keyed_client(operator_key)
    assert client.post(f"/api/sessions/{session_id}/connect").json()["status"] == "qr"
    assert client.post(f"/api/sandbox/sessions/{session_id}/scan").json()["status"] == "connected"
