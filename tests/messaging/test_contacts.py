"""Contact existence check and the own profile: picture (base64 or URL), status, name."""

from __future__ import annotations

import base64
import io
from http.server import BaseHTTPRequestHandler

import pytest
import segno
from django.test import override_settings

from messaging.models import SandboxDevice, SandboxGroup, Session
from tests.localhttp import base_url, serving
from tests.messaging.engines import UNAVAILABLE

pytestmark = pytest.mark.django_db


def _png() -> bytes:
    buffer = io.BytesIO()
    segno.make_qr("ponte").save(buffer, kind="png")
    return buffer.getvalue()


PNG = _png()
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64


def put(client, path, session, **body):
    return client.put(f"/api/contacts/profile/{path}", {"sessionId": str(session.pk), **body}, format="json")


# --- contacts check -----------------------------------------------------------------------------


def test_check_says_which_numbers_exist(admin_client, session):
    response = admin_client.get(
        f"/api/contacts/check?sessionId={session.pk}&numbers=5511988880002,5511900000000"
    )
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "results": [
            {"number": "5511988880002", "jid": "5511988880002@s.whatsapp.net", "exists": True},
            {"number": "5511900000000", "jid": "5511900000000@s.whatsapp.net", "exists": False},
        ],
    }


def test_check_validation(admin_client, session):
    base = f"/api/contacts/check?sessionId={session.pk}"
    assert admin_client.get(base).status_code == 400
    assert admin_client.get(base + "&numbers=+5511").status_code == 400
    many = ",".join(str(5511900000000 + i) for i in range(51))
    assert admin_client.get(base + f"&numbers={many}").status_code == 400
    assert admin_client.get("/api/contacts/check?numbers=5511988880002").status_code == 400


def test_check_is_limited_to_ten_per_minute(admin_client, session):
    path = f"/api/contacts/check?sessionId={session.pk}&numbers=5511988880002"
    for _ in range(10):
        assert admin_client.get(path).status_code == 200
    refused = admin_client.get(path)
    assert refused.status_code == 429
    assert refused["X-RateLimit-Limit"] == "10"


def test_check_needs_an_operator_and_a_connected_session(
    keyed_client, viewer_key, admin_client, make_session
):
    idle = make_session("idle")["id"]
    assert (
        keyed_client(viewer_key)
        .get(f"/api/contacts/check?sessionId={idle}&numbers=5511988880002")
        .status_code
        == 403
    )
    response = admin_client.get(f"/api/contacts/check?sessionId={idle}&numbers=5511988880002")
    assert response.status_code == 409


# --- status and name ----------------------------------------------------------------------------


def test_status_up_to_139_characters(admin_client, session):
    assert put(admin_client, "status", session, status="s" * 139).json() == {
        "success": True,
        "message": "The profile status was updated.",
    }
    assert Session.objects.get(pk=session.pk).profile_status == "s" * 139
    assert SandboxDevice.objects.get(session_id=session.pk).about == "s" * 139
    too_long = put(admin_client, "status", session, status="s" * 140)
    assert too_long.status_code == 400
    assert too_long.json()["error"] == "VALIDATION_ERROR"


def test_name_up_to_25_characters(admin_client, session):
    assert put(admin_client, "name", session, name="n" * 25).json()["success"] is True
    assert Session.objects.get(pk=session.pk).profile_name == "n" * 25
    assert put(admin_client, "name", session, name="n" * 26).status_code == 400
    assert put(admin_client, "name", session, name="").status_code == 400


def test_profile_needs_an_operator_and_a_connected_session(
    keyed_client, viewer_key, admin_client, make_session
):
    idle = Session.objects.get(pk=make_session("idle")["id"])
    assert put(keyed_client(viewer_key), "name", idle, name="x").status_code == 403
    assert put(admin_client, "name", idle, name="x").status_code == 409


# --- picture ------------------------------------------------------------------------------------


def test_picture_from_base64_and_data_uri(admin_client, session):
    response = put(admin_client, "picture", session, image=base64.b64encode(PNG).decode())
    assert response.json() == {"success": True, "message": "The profile picture was updated."}
    stored = Session.objects.get(pk=session.pk)
    assert bytes(stored.profile_picture) == PNG
    assert stored.profile_picture_type == "image/png"
    uri = "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    assert put(admin_client, "picture", session, image=uri).status_code == 200
    assert Session.objects.get(pk=session.pk).profile_picture_type == "image/jpeg"


@pytest.mark.parametrize("image", ["not base64!", base64.b64encode(b"GIF89a....").decode(), ""])
def test_picture_must_be_a_jpeg_or_png(admin_client, session, image):
    response = put(admin_client, "picture", session, image=image)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


def test_picture_size_is_limited(admin_client, session):
    with override_settings(MESSAGING_PROFILE_PICTURE_MAX_BYTES=len(PNG) - 1):
        assert put(admin_client, "picture", session, image=base64.b64encode(PNG).decode()).status_code == 400


def test_picture_jid_must_be_own_or_a_group(admin_client, session):
    image = base64.b64encode(PNG).decode()
    assert put(admin_client, "picture", session, image=image, jid=session.jid).status_code == 200
    refused = put(admin_client, "picture", session, image=image, jid="5511988880002")
    assert refused.status_code == 400
    assert "jid" in refused.json()["message"]


def _join(admin_client, session, *, admin: bool) -> str:
    group = "120363000000000555@g.us"
    admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound",
        {
            "event": "group_join",
            "group": group,
            "participants": [session.jid],
            "by": "5511988880002",
            "admins": [session.jid] if admin else [],
        },
        format="json",
    )
    return group


def test_a_group_picture_needs_group_admin_rights(admin_client, session):
    image = base64.b64encode(PNG).decode()
    group = _join(admin_client, session, admin=False)
    refused = put(admin_client, "picture", session, image=image, jid=group)
    assert refused.status_code == 403
    SandboxGroup.objects.filter(jid=group).update(participants={session.jid: True})
    done = put(admin_client, "picture", session, image=image, jid=group)
    assert done.json()["message"] == "The group picture was updated."
    assert SandboxGroup.objects.get(jid=group).picture_sha256
    assert not Session.objects.get(pk=session.pk).profile_picture


class _ImageHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        routes = {
            "/pic.png": (200, "image/png", PNG),
            "/page.html": (200, "text/html", b"<html></html>"),
            "/fake.png": (200, "image/png", b"not really a png"),
            "/big.png": (200, "image/png", PNG + b"\x00" * 10_000),
            "/moved": (302, "text/plain", b""),
        }
        status, content_type, body = routes.get(self.path, (404, "text/plain", b"no"))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if status == 302:
            self.send_header("Location", "/pic.png")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def image_server():
    with serving(_ImageHandler) as server:
        yield base_url(server)


def test_picture_from_a_url_is_fetched_and_checked(admin_client, session, image_server):
    with override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"]):
        assert put(admin_client, "picture", session, image=f"{image_server}/pic.png").status_code == 200
        assert bytes(Session.objects.get(pk=session.pk).profile_picture) == PNG
        for path in ("/page.html", "/fake.png", "/moved", "/missing"):
            response = put(admin_client, "picture", session, image=f"{image_server}{path}")
            assert response.status_code == 400, path
        with override_settings(MESSAGING_PROFILE_PICTURE_MAX_BYTES=len(PNG) + 100):
            assert put(admin_client, "picture", session, image=f"{image_server}/big.png").status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/pic.png",
        "http://169.254.169.254/latest",
        "http://10.0.0.1/x.png",
        "http://[::1]/x",
        "http://[2002:a9fe:a9fe::]/x.png",  # 6to4 form of the metadata address
        "http://[fec0::1]/x.png",  # site-local
        "http://[64:ff9b::a9fe:a9fe]/x.png",  # NAT64 form of the metadata address
    ],
)
def test_picture_urls_to_private_addresses_are_refused(admin_client, session, url):
    response = put(admin_client, "picture", session, image=url)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert "169.254" not in response.json()["message"] and "resolves to" not in response.json()["message"]


def test_a_picture_url_that_cannot_be_reached_gets_a_generic_error(admin_client, session):
    with override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"]):
        response = put(admin_client, "picture", session, image="http://127.0.0.1:9/pic.png")
    assert response.status_code == 400
    assert response.json()["message"] == "image: the URL could not be used: the URL could not be reached."


def test_unavailable_engine_for_profile_is_502(admin_client, session):
    Session.objects.filter(pk=session.pk).update(engine=UNAVAILABLE)
    assert put(admin_client, "name", session, name="x").status_code == 502
