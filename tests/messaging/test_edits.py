"""Message edits through the public API on the sandbox: own texts within 15 minutes, the history,
the `message_edited` event both ways."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.models import Message
from webhooks.models import Event

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"


@pytest.fixture
def session(connected_session):
    return connected_session()


@pytest.fixture
def sent(admin_client, session):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "Helo"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 200
    return response.json()["messageId"]


def edit(client, session, message_id: str, text: str = "Hello", to: str = CUSTOMER):
    body = {"sessionId": str(session.pk), "to": to, "messageId": message_id, "text": text}
    return client.post("/api/messages/edit", body, format="json")


def history(client, session) -> list[dict]:
    return client.get("/api/messages", {"sessionId": str(session.pk)}).json()["data"]


def test_an_own_text_is_edited_and_the_history_shows_the_new_text(admin_client, session, sent):
    response = edit(admin_client, session, sent)
    assert response.status_code == 200, response.json()
    assert response.json()["edited"] is True and response.json()["text"] == "Hello"
    record = next(m for m in history(admin_client, session) if m["messageId"] == sent)
    assert record["content"]["text"] == "Hello"
    assert record["edited"] is True and record["editedAt"]


def test_an_unedited_message_shows_edited_false(admin_client, session, sent):
    record = next(m for m in history(admin_client, session) if m["messageId"] == sent)
    assert record["edited"] is False and record["editedAt"] is None


def test_an_own_edit_emits_message_edited_from_me(admin_client, session, sent):
    edit(admin_client, session, sent)
    event = Event.objects.get(name="message_edited")
    assert event.data["messageId"] == sent
    assert event.data["chat"] == CUSTOMER
    assert event.data["text"] == "Hello"
    assert event.data["fromMe"] is True
    assert event.data["editedAt"]


def test_editing_another_participants_message_answers_403_not_message_author(admin_client, session):
    inbound = {"event": "message", "from": CUSTOMER, "text": "hi", "messageId": "3EB0THEIRS"}
    admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", inbound, format="json")
    response = edit(admin_client, session, "3EB0THEIRS")
    assert response.status_code == 403
    assert response.json()["error"] == "NOT_MESSAGE_AUTHOR"


def test_editing_after_fifteen_minutes_answers_409_edit_window_expired(admin_client, session, sent):
    Message.objects.filter(message_id=sent).update(timestamp=timezone.now() - timedelta(minutes=16))
    response = edit(admin_client, session, sent)
    assert response.status_code == 409
    assert response.json()["error"] == "EDIT_WINDOW_EXPIRED"
    assert not Event.objects.filter(name="message_edited").exists()


def test_editing_a_non_text_message_answers_400(admin_client, session):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "latitude": 1, "longitude": 2}
    message_id = admin_client.post("/api/messages/location", body, format="json").json()["messageId"]
    response = edit(admin_client, session, message_id)
    assert response.status_code == 400
    assert response.json()["error"] == "MESSAGE_NOT_EDITABLE"


def test_editing_an_unknown_message_answers_404(admin_client, session):
    response = edit(admin_client, session, "3EB0NOPE")
    assert response.status_code == 404 and response.json()["error"] == "MESSAGE_NOT_FOUND"


def test_the_other_sides_edit_updates_the_history_and_emits_message_edited(admin_client, session):
    inbound = {"event": "message", "from": CUSTOMER, "text": "teh", "messageId": "3EB0THEIRS"}
    admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", inbound, format="json")
    body = {"event": "message_edited", "from": CUSTOMER, "messageId": "3EB0THEIRS", "text": "the"}
    response = admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.json()
    event = Event.objects.get(name="message_edited")
    assert event.data["fromMe"] is False and event.data["text"] == "the"
    assert event.data["chat"] == CUSTOMER and event.data["sender"] == CUSTOMER
    record = next(m for m in history(admin_client, session) if m["messageId"] == "3EB0THEIRS")
    assert record["content"]["text"] == "the" and record["edited"] is True


def test_a_viewer_cannot_edit(make_key, session, sent, api_client):
    api_client.credentials(HTTP_X_API_KEY=make_key("viewer"))
    assert edit(api_client, session, sent).status_code == 403
