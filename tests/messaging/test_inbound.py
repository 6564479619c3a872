"""Inbound events injected through the sandbox are stored and emitted."""

from __future__ import annotations

import pytest

from messaging.models import Group, Message
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID, SEED_MESSAGE_FIELDS
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def inject(admin_client, session):
    def post(**body):
        return admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")

    return post


def test_a_text_message_is_stored_and_emitted_with_the_seed_fields(inject, session):
    response = inject(event="message", **{"from": CUSTOMER, "text": "Olá", "pushName": "Cliente"})
    assert response.status_code == 201
    data = response.json()["data"]
    message = Message.objects.get(message_id=data["id"])
    assert message.direction == "inbound" and not message.from_me
    assert message.chat == CUSTOMER_JID
    assert message.content == {"text": "Olá", "mediaUrl": None}
    event = Event.objects.get(name="message")
    assert event.chat == CUSTOMER_JID
    assert set(event.data) >= set(SEED_MESSAGE_FIELDS)
    assert event.data["sender"] == CUSTOMER_JID
    assert event.data["pushName"] == "Cliente"
    assert event.data["fromMe"] is False
    assert isinstance(event.data["timestamp"], int)


def test_other_message_types(inject):
    assert (
        inject(
            event="message", type="image", **{"from": CUSTOMER, "mediaUrl": "https://x/y.jpg", "caption": "c"}
        ).status_code
        == 201
    )
    assert (
        inject(
            event="message", type="location", **{"from": CUSTOMER, "latitude": 1, "longitude": 2}
        ).status_code
        == 201
    )
    contacts = [{"displayName": "A", "phoneNumber": "5511900000001"}]
    assert (
        inject(event="message", type="contacts", contacts=contacts, **{"from": CUSTOMER}).status_code == 201
    )
    types = sorted(Message.objects.values_list("type", flat=True))
    assert types == ["contacts", "image", "location"]
    assert Message.objects.get(type="location").content["location"]["latitude"] == 1


def test_an_inbound_reaction_updates_the_target_message(inject, admin_client, session):
    sent = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, "text": "hi"}, format="json"
    ).json()
    inject(event="message", type="reaction", reactionTo=sent["messageId"], emoji="❤️", **{"from": CUSTOMER})
    assert Message.objects.get(message_id=sent["messageId"]).reactions == {CUSTOMER_JID: "❤️"}
    inject(event="message", type="reaction", reactionTo=sent["messageId"], emoji="", **{"from": CUSTOMER})
    assert Message.objects.get(message_id=sent["messageId"]).reactions == {}
    assert Event.objects.filter(name="message", data__type="reaction").count() == 2


def test_acks_move_the_message_status_forward_only(inject, admin_client, session):
    sent = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, "text": "hi"}, format="json"
    ).json()
    assert inject(event="message_ack", messageId=sent["messageId"], status="read").status_code == 201
    assert Message.objects.get(message_id=sent["messageId"]).status == "read"
    inject(event="message_ack", messageId=sent["messageId"], status="delivered")
    assert Message.objects.get(message_id=sent["messageId"]).status == "read"
    ack = Event.objects.filter(name="message_ack").first()
    assert ack.chat == CUSTOMER_JID
    assert ack.data["status"] == "read"


def test_presence_calls_and_archive_are_emitted(inject):
    assert inject(event="presence", presence="composing", **{"from": CUSTOMER}).status_code == 201
    assert inject(event="call", video=True, **{"from": CUSTOMER}).status_code == 201
    assert inject(event="chat_archive", chat=CUSTOMER, archived=True).status_code == 201
    names = list(Event.objects.order_by("created_at").values_list("name", flat=True))
    assert names[-3:] == ["presence", "call", "chat_archive"]
    assert Event.objects.get(name="call").data["video"] is True


def test_group_join_and_leave_are_stored_and_emitted(inject, session):
    group = "120363000000000123@g.us"
    joined = inject(
        event="group_join", group=group, participants=[session.jid], by=CUSTOMER, subject="Família"
    )
    assert joined.status_code == 201
    row = Group.objects.get(jid=group)
    assert row.subject == "Família" and row.is_member
    inject(event="group_join", group=group, participants=["5511977770000"])
    assert Group.objects.get(jid=group).size == 3
    inject(event="group_leave", group=group, participants=[session.jid])
    assert Group.objects.get(jid=group).is_member is False
    assert [e.name for e in Event.objects.filter(chat=group).order_by("sequence")] == [
        "group_join",
        "group_join",
        "group_leave",
    ]


def test_a_message_in_a_group_the_session_is_not_in_is_404(inject):
    response = inject(event="message", chat="120363000000000321@g.us", text="x", **{"from": CUSTOMER})
    assert response.status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"event": "nope"},
        {"event": "message", "text": "no sender"},
        {"event": "message", "from": "abc", "text": "x"},
        {"event": "message", "from": CUSTOMER},
        {"event": "message", "from": CUSTOMER, "type": "location", "latitude": 100, "longitude": 0},
        {"event": "message_ack", "messageId": "x", "status": "seen"},
        {"event": "presence", "from": CUSTOMER, "presence": "online"},
        {"event": "group_join", "group": CUSTOMER, "participants": [CUSTOMER]},
        {"event": "group_join", "group": "120363000000000123@g.us", "participants": []},
    ],
)
def test_invalid_inbound_bodies_are_refused(inject, body):
    response = inject(**body)
    assert response.status_code == 400
    assert not Event.objects.exclude(name__in=["qr", "connected"]).exists()


def test_inbound_needs_a_connected_session(admin_client, make_session):
    session_id = make_session("idle")["id"]
    response = admin_client.post(
        f"/api/sandbox/sessions/{session_id}/inbound",
        {"event": "message", "from": CUSTOMER, "text": "x"},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["error"] == "SESSION_NOT_CONNECTED"


def test_events_are_numbered_per_chat(inject):
    for text in ("a", "b"):
        inject(event="message", text=text, **{"from": CUSTOMER})
    assert list(
        Event.objects.filter(chat=CUSTOMER_JID).order_by("sequence").values_list("sequence", flat=True)
    ) == [1, 2]


def test_media_fields_of_the_event_contract_are_injected_and_emitted(inject):
    audio = inject(
        event="message",
        **{"from": CUSTOMER, "type": "audio", "mediaUrl": "https://m.example/a.ogg", "voice": True},
    )
    assert audio.status_code == 201, audio.json()
    assert audio.json()["data"]["voice"] is True
    document = inject(
        event="message",
        **{
            "from": CUSTOMER,
            "type": "document",
            "mediaUrl": "https://m.example/b.pdf",
            "mimeType": "application/pdf",
            "fileName": "boleto.pdf",
            "sha256": "f00d",
        },
    )
    data = Event.objects.get(data__id=document.json()["data"]["id"]).data
    assert (data["fileName"], data["mimeType"], data["sha256"]) == ("boleto.pdf", "application/pdf", "f00d")
    refused = inject(event="message", **{"from": CUSTOMER, "type": "audio", "mediaUrl": "u", "voice": "yes"})
    assert refused.status_code == 400


def test_group_subject_updates_and_health_are_emitted(inject, session):
    group = "120363000000000001@g.us"
    inject(event="group_join", group=group, participants=[session.jid, CUSTOMER], by=CUSTOMER, subject="Old")
    response = inject(event="group_update", group=group, subject="New", by=CUSTOMER)
    assert response.status_code == 201, response.json()
    assert Group.objects.get(jid=group).subject == "New"
    assert Event.objects.get(name="group_update").chat == group
    health = inject(event="health", status="LIMITED", reason="too many messages")
    assert health.status_code == 201
    assert Event.objects.get(name="health").data["status"] == "LIMITED"
    assert inject(event="health", status="fine").status_code == 400


def test_a_history_message_is_marked_and_routed_to_the_history_webhook(inject, session):
    from tests.webhooks.instance_support import configure
    from webhooks.models import Delivery

    configure(session, webhook_history="http://127.0.0.1:9/history")
    response = inject(event="message", **{"from": CUSTOMER, "text": "old", "isHistory": True})
    assert response.status_code == 201 and response.json()["data"]["isHistory"] is True
    (delivery,) = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE)
    assert delivery.target_url == "http://127.0.0.1:9/history"
    assert inject(event="message", **{"from": CUSTOMER, "text": "x", "isHistory": "yes"}).status_code == 400


def test_a_message_id_received_twice_keeps_its_first_row_and_is_emitted_twice(inject, session):
    first = inject(event="message", messageId="3EB0REPEATED", text="first", **{"from": CUSTOMER})
    again = inject(event="message", messageId="3EB0REPEATED", text="again", **{"from": CUSTOMER})
    assert (first.status_code, again.status_code) == (201, 201)
    (message,) = Message.objects.filter(session=session, message_id="3EB0REPEATED")
    assert message.content["text"] == "first"
    assert Event.objects.filter(name="message", data__id="3EB0REPEATED").count() == 2
