"""Link previews on text sends: given, read from the page's Open Graph tags (through net.transport, a
real HTTP server on 127.0.0.1 standing in for the site), and never a reason to refuse a send."""

from __future__ import annotations

import base64
import time
from http.server import BaseHTTPRequestHandler

import pytest
from django.test import override_settings

from messaging.models import Message
from messaging.services.link_preview import first_link, link_preview_read
from tests.localhttp import base_url, serving
from tests.messaging.contract import CUSTOMER
from webhooks.models import Event

pytestmark = pytest.mark.django_db

THUMB = b"\xff\xd8\xff\xe0thumbnail"
PAGE = b"""<!doctype html><html><head><title>Fallback</title>
<meta property="og:title" content="Pizza &amp; Cia">
<meta property="og:description" content="A melhor pizza">
<meta property="og:image" content="/thumb.jpg"></head><body>hello</body></html>"""


class _Site(BaseHTTPRequestHandler):
    paths: list[str] = []

    def do_GET(self):
        _Site.paths.append(self.path)
        if self.path == "/slow":
            time.sleep(1.5)
        routes = {
            "/menu": (200, "text/html; charset=utf-8", PAGE),
            "/slow": (200, "text/html", PAGE),
            "/thumb.jpg": (200, "image/jpeg", THUMB),
            "/plain": (200, "text/html", "<html><head><title> Só o título </title></head></html>".encode()),
            "/big": (200, "text/html", PAGE + b" " * 5000),
            "/file.pdf": (200, "application/pdf", b"%PDF"),
        }
        status, content_type, body = routes.get(self.path, (404, "text/plain", b"no"))
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the slow page's reader gave up first
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    with serving(_Site) as server, override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"]):
        yield base_url(server)


@pytest.fixture
def send(admin_client, session):
    def post(**body):
        response = admin_client.post(
            "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, **body}, format="json"
        )
        assert response.status_code == 200, response.json()
        return Message.objects.get(message_id=response.json()["messageId"])

    return post


def _echo() -> dict:
    return Event.objects.filter(name="message").order_by("created_at").last().data


def test_a_given_preview_is_sent_as_given_and_kept(send):
    thumb = base64.b64encode(THUMB).decode()
    preview = {
        "url": "https://loja.example/menu",
        "title": "Menu",
        "description": "Hoje",
        "thumbnailBase64": thumb,
    }
    message = send(text="Veja https://loja.example/menu", linkPreview=preview)
    card = {"url": "https://loja.example/menu", "title": "Menu", "description": "Hoje"}
    assert message.content == {"text": "Veja https://loja.example/menu", "linkPreview": card}
    assert _echo()["linkPreview"] == card


def test_a_given_preview_whose_link_is_not_in_the_text_is_a_400(admin_client, session):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "sem link"}
    body["linkPreview"] = {"url": "https://loja.example/", "title": "x"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 400 and "linkPreview" in response.json()["message"]
    body["linkPreview"] = {"url": "https://loja.example/", "title": "x", "thumbnailBase64": "@@"}
    body["text"] = "https://loja.example/"
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 400


def test_true_reads_the_open_graph_title_description_and_image(site, send):
    message = send(text=f"Cardápio: {site}/menu.", linkPreview=True)
    card = {"url": f"{site}/menu", "title": "Pizza & Cia", "description": "A melhor pizza"}
    assert message.content["linkPreview"] == card
    assert link_preview_read(f"{site}/menu").thumbnail == THUMB


def test_the_page_title_stands_in_for_a_missing_og_title(site):
    preview = link_preview_read(f"{site}/plain")
    assert (preview.title, preview.description, preview.thumbnail) == ("Só o título", "", b"")


@pytest.mark.parametrize(
    "path",
    [
        "/missing",
        "/file.pdf",
        "/big",
        pytest.param("/slow", marks=pytest.mark.slow),  # waits out the real 1 s read timeout
    ],
)
def test_a_page_that_fails_sends_the_text_without_a_preview(site, send, path):
    with override_settings(MESSAGING_LINK_PREVIEW_MAX_BYTES=1000, MESSAGING_LINK_PREVIEW_TIMEOUT=1):
        message = send(text=f"link {site}{path}", linkPreview=True)
    assert message.content == {"text": f"link {site}{path}"}
    assert "linkPreview" not in _echo()


def test_a_refused_address_or_no_link_sends_the_text_without_a_preview(send):
    # 127.0.0.1 is not on the allow-list here: the SSRF-safe transport refuses it.
    assert "linkPreview" not in send(text="http://127.0.0.1:9/x", linkPreview=True).content
    assert send(text="sem link nenhum", linkPreview=True).content == {"text": "sem link nenhum"}


def test_a_session_not_connected_is_409_and_no_page_is_read(admin_client, session, site):
    session.status = "disconnected"
    session.save(update_fields=["status"])
    _Site.paths.clear()
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": f"{site}/menu", "linkPreview": True}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"
    assert _Site.paths == []


def test_the_first_link_leaves_sentence_punctuation_out():
    assert first_link("veja (https://a.example/x?y=1), ok") == "https://a.example/x?y=1"
    assert first_link("nada aqui") == ""
