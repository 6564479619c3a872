"""Raw JSON typed into the messaging admin is checked for its shape and for \\u0000 (which PostgreSQL
refuses): a field error, never a 500."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from messaging.models import Group, Message, Session


@pytest.fixture
def staff(client, db):
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    return client


@pytest.fixture
def message(account) -> Message:
    session = Session.objects.create(account=account, name="main")
    return Message.objects.create(session=session, message_id="ABC", chat="5511999990002@s.whatsapp.net")


def _message_post(staff, message: Message, **fields):
    data = {
        "session": message.session_id,
        "message_id": message.message_id,
        "chat": message.chat,
        "direction": message.direction,
        "type": message.type,
        "status": message.status,
        "content": "{}",
        "reactions": "{}",
        "timestamp_0": "2026-11-23",
        "timestamp_1": "10:00:00",
        **fields,
    }
    return staff.post(f"/admin/messaging/message/{message.pk}/change/", data)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("content", '{"text": "a\\u0000b"}', "must not contain \\u0000"),
        ("reactions", '{"\\u0000": "x"}', "must not contain \\u0000"),
        ("content", '["not", "an", "object"]', "Give a JSON object"),
        ("reactions", '"x"', "Give a JSON object"),
        ("content", "{not json", "Enter a valid JSON"),
    ],
)
def test_bad_json_in_a_message_is_a_field_error(staff, message, field, value, error):
    reply = _message_post(staff, message, **{field: value})
    assert reply.status_code == 200
    assert error in reply.context["adminform"].form.errors[field][0]


def test_a_message_with_sound_json_is_saved(staff, message):
    assert _message_post(staff, message, content='{"text": "hi"}').status_code == 302
    message.refresh_from_db()
    assert message.content == {"text": "hi"}


def test_group_participants_must_be_a_list(staff, account):
    group = Group.objects.create(session=Session.objects.create(account=account, name="main"), jid="1@g.us")
    data = {
        "session": group.session_id,
        "jid": group.jid,
        "subject_time": 0,
        "creation": 0,
        "is_member": "on",
    }
    reply = staff.post(f"/admin/messaging/group/{group.pk}/change/", {**data, "participants": '{"a": 1}'})
    assert reply.status_code == 200
    assert "Give a JSON list" in reply.context["adminform"].form.errors["participants"][0]


def test_a_nul_in_a_session_filter_reopens_the_list_flagged(staff):
    reply = staff.get("/admin/messaging/session/?status__exact=%00")
    assert reply.status_code == 302 and reply["Location"].endswith("?e=1")


def test_a_sessions_account_cannot_be_changed_in_the_admin(staff, account, make_account):
    session = Session.objects.create(account=account, name="main")
    other = make_account(name="other")
    data = {"account": other.pk, "name": "renamed", "provider": "whatsapp"}
    assert staff.post(f"/admin/messaging/session/{session.pk}/change/", data).status_code == 302
    session.refresh_from_db()
    assert (session.account, session.name) == (account, "renamed")
