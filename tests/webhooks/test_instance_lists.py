"""List messages, list responses, link previews and forwards in the instance webhooks' `meta` body: the
cloud API's own shapes where it has them (interactive list_reply, context.forwarded), Ponte's documented
extension otherwise (text.link_preview), each a valid envelope."""

from __future__ import annotations

import pytest

from messaging.engines.events import event_from_data
from messaging.services.events import engine_event_receive
from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import CONTACT_JID, OWN_JID, configure, instance_session
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def _entry(session, **data) -> dict:
    message = {
        "id": data.pop("id", "3EB0MSG1"),
        "chat": CONTACT_JID,
        "sender": CONTACT_JID,
        "pushName": "Maria",
        "text": "",
        "timestamp": 1763800000,
        "fromMe": False,
        "type": "text",
        **data,
    }
    engine_event_receive(str(session.pk), event_from_data("message", message))
    delivery = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE).order_by("-id").first()
    validate_envelope(delivery.payload)
    return delivery.payload["entry"][0]["changes"][0]["value"]["messages"][0]


def test_a_list_response_is_the_cloud_apis_interactive_list_reply(session):
    entry = _entry(
        session,
        type="list_response",
        text="Suco",
        listResponse={"rowId": "b1", "title": "Suco", "description": "Laranja"},
        quoted={"messageId": "3EB0LIST"},
    )
    assert entry["type"] == "interactive" and entry["context"] == {"id": "3EB0LIST"}
    assert entry["interactive"] == {
        "type": "list_reply",
        "list_reply": {"id": "b1", "title": "Suco", "description": "Laranja"},
    }


def test_an_own_list_is_the_cloud_apis_interactive_list_object(session):
    listed = {
        "buttonText": "Ver menu",
        "title": "Menu",
        "footer": "",
        "sections": [
            {"title": "Pizzas", "rows": [{"rowId": "p1", "title": "Margherita", "description": ""}]}
        ],
    }
    entry = _entry(
        session, id="3EB0OWN", type="list", text="Escolha", fromMe=True, sender=OWN_JID, list=listed
    )
    assert entry["interactive"] == {
        "type": "list",
        "header": {"type": "text", "text": "Menu"},
        "body": {"text": "Escolha"},
        "action": {
            "button": "Ver menu",
            "sections": [{"title": "Pizzas", "rows": [{"id": "p1", "title": "Margherita"}]}],
        },
    }


def test_a_preview_is_the_text_extension_and_a_forward_the_context_flag(session):
    card = {"url": "https://x.example", "title": "X", "description": "D"}
    entry = _entry(session, text="https://x.example", linkPreview=card, forwarded=True)
    assert entry["text"] == {"body": "https://x.example", "link_preview": card}
    assert entry["context"] == {"forwarded": True}
    quoted = _entry(session, id="M2", text="re", forwarded=True, quoted={"messageId": "3EB0PREV"})
    assert quoted["context"] == {"id": "3EB0PREV", "forwarded": True}
