"""Chat actions, blocks and labels in the `meta` envelope: the cloud API has none of them, so they are
Ponte's documented extension (docs/instance-webhooks.md): fields `chats`, `blocklist` and `labels`."""

from __future__ import annotations

import pytest

from tests.webhooks.instance_support import GROUP_JID, body_of, configure, instance_session

pytestmark = pytest.mark.django_db

CONTACT = "5511988887777@s.whatsapp.net"


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def value_of(session, name: str, data: dict, field: str) -> dict:
    body = body_of(session, name, data)
    (change,) = body["entry"][0]["changes"]
    assert change["field"] == field
    assert change["value"]["messaging_product"] == "whatsapp"
    return change["value"]


def test_chat_actions_are_entries_of_chats_with_their_new_state(session):
    cases = [
        ("chat_archive", {"chat": CONTACT, "archived": True}, "archive", "archived", True),
        ("chat_pin", {"chat": GROUP_JID, "pinned": False}, "pin", "pinned", False),
        (
            "chat_mute",
            {"chat": CONTACT, "mutedUntil": "2026-11-23T04:00:00+00:00"},
            "mute",
            "muted_until",
            "1795406400",
        ),
        ("chat_mute", {"chat": CONTACT, "mutedUntil": None}, "mute", "muted_until", None),
        ("chat_unread", {"chat": CONTACT, "unread": True}, "unread", "unread", True),
    ]
    for name, data, action, key, value in cases:
        (entry,) = value_of(session, name, {**data, "timestamp": 1763800700}, "chats")["chats"]
        chat = data["chat"]
        assert entry == {
            "id": GROUP_JID if chat == GROUP_JID else "5511988887777",
            "chat_type": "group" if chat == GROUP_JID else "individual",
            "action": action,
            key: value,
            "timestamp": "1763800700",
        }, name


def test_a_block_is_an_entry_of_blocklist(session):
    value = value_of(
        session, "contact_block", {"jid": CONTACT, "blocked": False, "timestamp": 1763800700}, "blocklist"
    )
    assert value["blocklist"] == [{"wa_id": "5511988887777", "action": "unblock", "timestamp": "1763800700"}]


def test_labels_and_their_chats_are_entries_of_labels(session):
    data = {"labelId": "4", "name": "VIP", "color": 7, "deleted": False, "timestamp": 1763800700}
    assert value_of(session, "label_edit", data, "labels")["labels"] == [
        {"id": "4", "name": "VIP", "color": 7, "deleted": False, "timestamp": "1763800700"}
    ]
    data = {"labelId": "4", "chat": GROUP_JID, "labeled": True, "timestamp": 1763800700}
    assert value_of(session, "label_association", data, "labels")["label_associations"] == [
        {
            "label_id": "4",
            "chat_id": GROUP_JID,
            "chat_type": "group",
            "labeled": True,
            "timestamp": "1763800700",
        }
    ]
