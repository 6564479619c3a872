"""Lists, link previews and forwards as kinds of the returning contract (docs/decisions/0028, 0033): an
engine that has no `send_list`, `send_text_preview` or `send_forward` answers 400 OPERATION_NOT_SUPPORTED
naming itself and nothing is recorded; the copy of a forward keeps the original's content, not what was
the original's alone."""

from __future__ import annotations

import pytest

from messaging.engines.base import Engine, ForwardContent, LinkPreview, OutgoingForward, OutgoingTextPreview
from messaging.engines.sandbox import SandboxEngine
from messaging.models import Message
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID

pytestmark = pytest.mark.django_db


class PlainSandbox(SandboxEngine):
    """The sandbox without lists, previews and forwards: the contract's defaults."""

    label = "sandbox-plain-test"
    send_list = Engine.send_list
    send_text_preview = Engine.send_text_preview
    send_forward = Engine.send_forward


PLAIN = "tests.messaging.test_outgoing_lists.PlainSandbox"


@pytest.fixture
def plain(session):
    session.engine = PLAIN
    session.save(update_fields=["engine"])
    return session


def test_an_engine_without_the_three_kinds_answers_400_naming_itself_and_records_nothing(admin_client, plain):
    body = {"sessionId": str(plain.pk), "to": CUSTOMER}
    rows = [{"rowId": "r1", "title": "Um"}]
    listed = {**body, "text": "Escolha", "buttonText": "Ver", "sections": [{"title": "S", "rows": rows}]}
    card = {"url": "https://loja.example", "title": "Loja"}
    previewed = {**body, "text": "Veja https://loja.example", "linkPreview": card}
    for path, payload, said in (
        ("list", listed, "cannot send list messages"),
        ("send", previewed, "cannot send link previews"),
    ):
        response = admin_client.post(f"/api/messages/{path}", payload, format="json")
        assert response.status_code == 400, response.json()
        assert response.json()["error"] == "OPERATION_NOT_SUPPORTED"
        assert "sandbox-plain-test" in response.json()["message"] and said in response.json()["message"]
    assert not Message.objects.filter(session=plain, chat=CUSTOMER_JID).exists()


def test_a_forward_on_an_engine_without_it_is_400_naming_the_engine(admin_client, session):
    sent = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, "text": "Oi"}, format="json"
    ).json()
    session.engine = PLAIN
    session.save(update_fields=["engine"])
    forward = {"sessionId": str(session.pk), "to": "5511977770003", "chat": CUSTOMER_JID}
    response = admin_client.post(
        "/api/messages/forward", {**forward, "messageId": sent["messageId"]}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "sandbox-plain-test engine cannot forward messages" in response.json()["message"]


def test_the_copy_keeps_the_original_content_without_what_was_the_originals_alone():
    original = {
        "text": "Oi",
        "quoted": {"messageId": "3EB0Q"},
        "linkPreview": {"url": "https://a.example"},
        "error": "X",
        "template": {"name": "t"},
        "mediaUrl": "/media/old",
    }
    copy = OutgoingForward(
        to=CUSTOMER_JID,
        content=ForwardContent(type="text", text="Oi"),
        original_type="text",
        original=original,
    )
    assert copy.history() == {"text": "Oi", "forwarded": True} and copy.row_type == "text"
    assert not copy.carries_media


def test_a_text_with_a_preview_keeps_its_card_and_quote_but_not_the_thumbnail():
    preview = LinkPreview(url="https://a.example", title="A", description="d", thumbnail=b"\xff\xd8")
    sent = OutgoingTextPreview(to=CUSTOMER_JID, text="https://a.example", preview=preview)
    assert sent.row_type == "text"
    assert sent.history() == {
        "text": "https://a.example",
        "linkPreview": {"url": "https://a.example", "title": "A", "description": "d"},
    }
