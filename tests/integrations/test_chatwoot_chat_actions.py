"""The Chatwoot mirror leaves chat actions, blocks and labels alone (issue 41: labels are WhatsApp's,
not mirrored; archive, pin, mute and unread marks are the phone's list, not the conversation): no mirror
job for any of them, through the API or from the phone."""

from __future__ import annotations

import pytest

from integrations.chatwoot.models import MirrorJob
from tests.integrations.support import CUSTOMER, inbound

pytestmark = pytest.mark.django_db


def test_chat_actions_blocks_and_labels_are_not_mirrored(admin_client, integration, chatwoot):
    session = integration.session
    base = {"sessionId": str(session.pk)}
    for path, body in (
        ("/api/chats/archive", {"chatId": CUSTOMER, "archived": True}),
        ("/api/chats/pin", {"chatId": CUSTOMER, "pinned": True}),
        ("/api/chats/unread", {"chatId": CUSTOMER, "unread": True}),
        ("/api/labels", {"name": "VIP", "color": 1}),
        ("/api/chats/labels", {"chatId": CUSTOMER, "labelId": "1", "action": "add"}),
        ("/api/contacts/block", {"jid": CUSTOMER, "blocked": True}),
    ):
        reply = admin_client.post(path, {**base, **body}, format="json")
        assert reply.status_code in (200, 201), (path, reply.content)
    inbound(admin_client, session, event="label_edit", labelId="2", name="Pago", color=3)
    inbound(admin_client, session, event="chat_mute", chat=CUSTOMER)
    assert not MirrorJob.objects.exists()
    assert chatwoot.messages == {}
