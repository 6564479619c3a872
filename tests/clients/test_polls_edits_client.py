"""The Python client's polls, edits and idempotency keys against a live Ponte on the sandbox."""

from __future__ import annotations

import pytest
from ponte_client import Client, PollResults
from ponte_client.errors import PonteError

from messaging.models import Message
from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_inject, sandbox_scan

CUSTOMER = "5511988880002"
JID = f"{CUSTOMER}@s.whatsapp.net"


def _paired(client: Client) -> str:
    session = client.sessions.create("polls")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_send_poll_and_poll_results_are_typed(client) -> None:
    session_id = _paired(client)
    sent = client.messages.send_poll(session_id, CUSTOMER, "Lunch?", ["Yes", "No"], selectable_count=1)
    assert sent.message_id and sent.to == JID
    session = SessionRow.objects.get(pk=session_id)
    vote = {"from": JID, "pollMessageId": sent.message_id, "options": ["No"]}
    sandbox_inject(session=session, event="poll_vote", data=vote)
    results = client.messages.poll_results(session_id, sent.message_id)
    assert isinstance(results, PollResults) and results.name == "Lunch?"
    assert [(o.name, o.count, o.voters) for o in results.options] == [("Yes", 0, []), ("No", 1, [JID])]


def test_edit_message_and_idempotency_keys(client) -> None:
    session_id = _paired(client)
    first = client.messages.send_text(session_id, CUSTOMER, "Helo", idempotency_key="order-42")
    again = client.messages.send_text(session_id, CUSTOMER, "Helo", idempotency_key="order-42")
    assert again.message_id == first.message_id
    assert Message.objects.filter(session_id=session_id, from_me=True).count() == 1
    with pytest.raises(PonteError) as caught:
        client.messages.send_text(session_id, CUSTOMER, "other", idempotency_key="order-42")
    assert caught.value.statusCode == 422
    edited = client.messages.edit_message(session_id, CUSTOMER, first.message_id, "Hello")
    assert edited["edited"] is True and edited["text"] == "Hello"
