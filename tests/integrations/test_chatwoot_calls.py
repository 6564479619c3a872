"""A call the session rejects (`rejectCalls`) shows in the caller's open Chatwoot conversation as a
private note, followed by the message the caller got; a call never opens a conversation by itself."""

from __future__ import annotations

import pytest

from tests.integrations.support import CUSTOMER, drain_all, inbound

pytestmark = pytest.mark.django_db


def reject_calls(admin_client, session) -> None:
    body = {"rejectCalls": True, "rejectCallMessage": "Só atendemos por texto"}
    assert admin_client.put(f"/api/sessions/{session.pk}/settings", body, format="json").status_code == 200


def test_a_rejected_call_is_a_private_note_in_the_open_conversation(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="oi")
    drain_all(integration)
    reject_calls(admin_client, integration.session)
    inbound(admin_client, integration.session, event="call", **{"from": CUSTOMER})
    drain_all(integration)
    notes = [m["content"] for m in chatwoot.messages.values() if m["private"]]
    assert notes == ["📞 Incoming call rejected automatically (the session rejects calls)."]
    public = [(m["content"], m["message_type"]) for m in chatwoot.messages.values() if not m["private"]]
    assert public[-1] == ("Só atendemos por texto", 1)  # outgoing


def test_a_call_never_opens_a_conversation_and_offers_are_not_mirrored(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, event="call", **{"from": CUSTOMER})
    drain_all(integration)
    assert chatwoot.conversations == {}
    reject_calls(admin_client, integration.session)
    inbound(admin_client, integration.session, event="call", video=True, **{"from": CUSTOMER})
    drain_all(integration)
    assert not [m for m in chatwoot.messages.values() if m["private"]]
