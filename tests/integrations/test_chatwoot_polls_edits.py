"""Edits, polls and votes in the Chatwoot mirror: an edit made on the channel adds a private note
replying to the mirrored message; a poll is mirrored as text; a vote is a private note."""

from __future__ import annotations

import pytest

from tests.integrations.support import CUSTOMER, drain_all, inbound

pytestmark = pytest.mark.django_db
JID = f"{CUSTOMER}@s.whatsapp.net"


def test_a_customer_edit_adds_a_private_note_replying_to_the_mirrored_message(
    admin_client, integration, chatwoot
):
    inbound(admin_client, integration.session, text="teh order", messageId="3EB0EDITME000001")
    drain_all(integration)
    (original,) = chatwoot.messages.values()
    inbound(
        admin_client,
        integration.session,
        event="message_edited",
        **{"from": CUSTOMER},
        messageId="3EB0EDITME000001",
        text="the order",
    )
    drain_all(integration)
    notes = [m for m in chatwoot.messages.values() if m["private"]]
    assert [n["content"] for n in notes] == ["✏️ Edited: the order"]
    assert notes[0]["content_attributes"]["in_reply_to"] == original["id"]


def test_a_poll_is_mirrored_as_text_and_a_vote_as_a_private_note(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="oi")  # opens the conversation
    drain_all(integration)
    body = {
        "sessionId": str(integration.session_id),
        "to": CUSTOMER,
        "name": "Lunch?",
        "options": ["Yes", "No"],
    }
    poll_id = admin_client.post("/api/messages/poll", body, format="json").json()["messageId"]
    drain_all(integration)
    vote = {"event": "poll_vote", "from": CUSTOMER, "pollMessageId": poll_id, "options": ["Yes"]}
    inbound(admin_client, integration.session, **vote)
    drain_all(integration)
    contents = [m["content"] for m in chatwoot.messages.values()]
    assert "📊 Lunch?\n◻️ Yes\n◻️ No" in contents
    notes = [m["content"] for m in chatwoot.messages.values() if m["private"]]
    assert notes == [f"📊 +{CUSTOMER} voted: Yes"]
