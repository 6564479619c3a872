"""Media: sending by URL and base64 (limits, SSRF refusals, quota), inbound media stored and served
back byte for byte through signed, expiring links."""

from __future__ import annotations

import base64
import hashlib
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

import pytest
from django.test import override_settings

from messaging.media import media_link
from messaging.models import Message
from tests.localhttp import base_url, serving
from tests.messaging.audio_inputs import tone
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

# Not a real picture: the bytes are what matters, and they must come back identical.
IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8
PDF = b"%PDF-1.4\n" + b"\x00\x01binary\xff" * 100


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }
    return tmp_path / "media"


def send(client, session, **body):
    return client.post(
        "/api/messages/media", {"sessionId": str(session.pk), "to": CUSTOMER, **body}, format="json"
    )


def fetch(client, url: str):
    return client.get(urlsplit(url).path)


def last_event(session, name="message"):
    return Event.objects.filter(session_id=session.pk, name=name).order_by("-sequence").first()


def test_media_sent_as_base64_is_echoed_with_a_link_serving_the_same_bytes(admin_client, client, session):
    response = send(
        admin_client, session, type="image", base64=base64.b64encode(IMAGE).decode(), caption="Oi"
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "sent" and body["messageId"] and body["to"] == CUSTOMER_JID
    data = last_event(session).data
    assert (data["type"], data["fromMe"], data["caption"], data["mimeType"]) == (
        "image",
        True,
        "Oi",
        "image/jpeg",
    )
    assert data["sha256"] == hashlib.sha256(IMAGE).hexdigest() and data["size"] == len(IMAGE)
    served = fetch(client, data["mediaUrl"])  # no API key: the signed link is the credential
    assert served.status_code == 200 and b"".join(served.streaming_content) == IMAGE
    assert served["Content-Type"] == "image/jpeg" and served["X-Content-Type-Options"] == "nosniff"
    message = Message.objects.get(message_id=body["messageId"])
    assert message.type == "image" and message.content["sha256"] == data["sha256"]


def test_a_data_uri_gives_the_type_and_a_voice_note_is_an_audio_flagged_voice(admin_client, session):
    uri = "data:audio/ogg;base64," + base64.b64encode(tone("ogg", seconds=0.5)).decode()
    assert send(admin_client, session, type="voice", base64=uri).status_code == 200
    data = last_event(session).data
    # Converted to what WhatsApp records (tests/messaging/test_voice_notes.py).
    assert (data["type"], data["voice"], data["mimeType"]) == ("audio", True, "audio/ogg; codecs=opus")


def test_a_document_keeps_its_file_name(admin_client, client, session):
    encoded = base64.b64encode(PDF).decode()
    response = send(admin_client, session, type="document", base64=encoded, fileName="boleto.pdf")
    assert response.status_code == 200
    data = last_event(session).data
    assert (data["fileName"], data["mimeType"]) == ("boleto.pdf", "application/pdf")
    served = fetch(client, data["mediaUrl"])
    assert 'filename="boleto.pdf"' in served["Content-Disposition"]


class _MediaHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        routes = {"/photo.jpg": (200, "image/jpeg", IMAGE), "/big.jpg": (200, "image/jpeg", IMAGE * 20)}
        status, content_type, body = routes.get(self.path, (404, "text/plain", b"no"))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def media_server():
    with serving(_MediaHandler) as server:
        yield base_url(server)


def test_media_from_a_url_is_fetched_and_sent_byte_for_byte(admin_client, client, session, media_server):
    with override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"]):
        response = send(admin_client, session, type="image", url=f"{media_server}/photo.jpg")
    assert response.status_code == 200, response.json()
    data = last_event(session).data
    assert data["sha256"] == hashlib.sha256(IMAGE).hexdigest()
    assert b"".join(fetch(client, data["mediaUrl"]).streaming_content) == IMAGE


def test_media_over_the_size_limit_is_refused_from_base64_and_url(admin_client, session, media_server):
    with override_settings(
        MESSAGING_MEDIA_MAX_BYTES=len(IMAGE) + 10, PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"]
    ):
        big = base64.b64encode(IMAGE * 2).decode()
        response = send(admin_client, session, type="image", base64=big)
        assert response.status_code == 400 and "larger than" in response.json()["message"]
        response = send(admin_client, session, type="image", url=f"{media_server}/big.jpg")
        assert response.status_code == 400 and "larger than" in response.json()["message"]
        assert send(admin_client, session, type="image", url=f"{media_server}/photo.jpg").status_code == 200
    assert Message.objects.filter(session=session).count() == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.jpg",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/x.jpg",
        "ftp://example.com/x",
    ],
)
def test_media_urls_to_private_addresses_are_refused(admin_client, session, url):
    response = send(admin_client, session, type="image", url=url)
    assert response.status_code == 400
    assert "169.254" not in response.json()["message"] or url.startswith("http://169")
    assert not Message.objects.filter(session=session).exists()


@pytest.mark.parametrize(
    "body",
    [
        {"type": "image"},  # neither source
        {"type": "image", "base64": "aGk=", "url": "https://example.com/a.jpg"},  # both
        {"type": "image", "base64": "not base64!"},
        {"type": "gif", "base64": "aGk="},
        {"type": "image", "base64": "aGk=", "mimeType": "video/mp4"},
        {"type": "sticker", "base64": "aGk=", "mimeType": "image/png"},
        {"type": "audio", "base64": "aGk=", "caption": "no"},
        {"type": "image", "base64": 12},
    ],
)
def test_bad_media_requests_are_400_and_send_nothing(admin_client, session, body):
    response = send(admin_client, session, **body)
    assert response.status_code == 400, response.json()
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert not Message.objects.filter(session=session).exists()


def test_media_sends_count_against_the_daily_quota(admin_client, session):
    plan = session.account.plan
    plan.messages_per_day = 1
    plan.save()
    encoded = base64.b64encode(IMAGE).decode()
    assert send(admin_client, session, type="image", base64=encoded).status_code == 200
    refused = send(admin_client, session, type="image", base64=encoded)
    assert refused.status_code == 429 and refused["Retry-After"]


def test_media_needs_a_connected_session_and_an_operator(
    admin_client, make_session, keyed_client, make_key, session
):
    idle = make_session("idle")
    response = admin_client.post(
        "/api/messages/media",
        {"sessionId": idle["id"], "to": CUSTOMER, "type": "image", "base64": "aGk="},
        format="json",
    )
    assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"
    viewer = keyed_client(make_key("viewer"))
    assert send(viewer, session, type="image", base64="aGk=").status_code == 403


def test_inbound_media_is_stored_and_served_back_identical(admin_client, client, session):
    body = {
        "event": "message",
        "from": CUSTOMER,
        "type": "document",
        "media": {
            "base64": base64.b64encode(PDF).decode(),
            "mimeType": "application/pdf",
            "fileName": "nota.pdf",
        },
        "caption": "Segue a nota",
    }
    response = admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.json()
    data = last_event(session).data
    assert (data["type"], data["fromMe"], data["fileName"], data["size"]) == (
        "document",
        False,
        "nota.pdf",
        len(PDF),
    )
    served = b"".join(fetch(client, data["mediaUrl"]).streaming_content)
    assert hashlib.sha256(served).hexdigest() == data["sha256"] == hashlib.sha256(PDF).hexdigest()
    assert Message.objects.get(message_id=data["id"]).content["mediaUrl"] == data["mediaUrl"]


@pytest.mark.parametrize("type_", ["image", "video", "audio", "voice", "sticker"])
def test_every_inbound_media_type_is_stored(admin_client, client, session, type_):
    mime = {
        "image": "image/jpeg",
        "video": "video/mp4",
        "audio": "audio/mpeg",
        "voice": "audio/ogg",
        "sticker": "image/webp",
    }
    media = {"base64": base64.b64encode(IMAGE).decode(), "mimeType": mime[type_]}
    body = {"event": "message", "from": CUSTOMER, "type": type_, "media": media}
    assert (
        admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json").status_code
        == 201
    )
    data = last_event(session).data
    assert data["type"] == ("audio" if type_ == "voice" else type_) and data["mimeType"] == mime[type_]
    assert data.get("voice") is (True if type_ == "voice" else data.get("voice"))
    assert b"".join(fetch(client, data["mediaUrl"]).streaming_content) == IMAGE


@pytest.mark.parametrize(
    "media",
    [{"base64": "***", "mimeType": "image/jpeg"}, {"mimeType": "image/jpeg"}, {"base64": "aGk="}, "aGk="],
)
def test_bad_inbound_media_is_400(admin_client, session, media):
    body = {"event": "message", "from": CUSTOMER, "type": "image", "media": media}
    assert (
        admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json").status_code
        == 400
    )


def test_expired_and_forged_media_links_are_refused(admin_client, client, session):
    send(admin_client, session, type="image", base64=base64.b64encode(IMAGE).decode())
    url = last_event(session).data["mediaUrl"]
    path = urlsplit(url).path
    token = path.rsplit("/", 1)[-1]
    stored = f"{session.pk}/{hashlib.sha256(IMAGE).hexdigest()}"
    expired = fetch(client, media_link(stored, "image/jpeg", ttl=-1))
    assert expired.status_code == 410 and expired.json()["error"] == "MEDIA_LINK_EXPIRED"
    forged = client.get(path.replace(token, token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")))
    assert forged.status_code == 404
    assert fetch(client, url).status_code == 200


def test_a_deleted_sessions_media_is_gone(admin_client, client, session, django_capture_on_commit_callbacks):
    send(admin_client, session, type="image", base64=base64.b64encode(IMAGE).decode())
    url = last_event(session).data["mediaUrl"]
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.delete(f"/api/sessions/{session.pk}").status_code in (200, 204)
    assert fetch(client, url).status_code == 404
