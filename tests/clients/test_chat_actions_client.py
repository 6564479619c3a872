"""ponte_client's chat and contact actions and labels against a live Ponte on the sandbox: typed
results (Chat flags, Label, blocked Contact), the blocked-send error, the async twins and role rules."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from ponte_client import AsyncClient, Chat, ConflictError, Label, NotFoundError, PermissionDeniedError

from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_scan

ANA = "5511911110001"
ANA_JID = f"{ANA}@s.whatsapp.net"


@pytest.fixture
def paired(client):
    session = client.sessions.create("actions")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_chat_actions_return_typed_chats_and_filter_the_list(client, paired) -> None:
    pinned = client.chat_actions.pin(paired, ANA)
    assert isinstance(pinned, Chat) and (pinned.id, pinned.pinned) == (ANA_JID, True)
    until = (datetime.now(tz=UTC) + timedelta(hours=2)).replace(microsecond=0)
    muted = client.chat_actions.mute(paired, ANA, until)
    assert muted.muted_until == until
    assert client.chat_actions.mute(paired, ANA, None).muted_until is None
    assert client.chat_actions.mark_unread(paired, ANA).marked_unread is True
    assert client.chat_actions.archive(paired, ANA).archived is True
    assert [c.id for c in client.chat_actions.list(paired, archived=True).items] == [ANA_JID]
    assert client.chat_actions.list(paired, pinned=True).total == 0  # archiving unpinned it
    with pytest.raises(TypeError):
        client.chat_actions.list(paired, starred=True)  # type: ignore[call-arg]


def test_blocks_refuse_sends_with_a_typed_conflict(client, paired) -> None:
    assert client.chat_actions.block(paired, ANA) == {"success": True, "jid": ANA_JID, "blocked": True}
    (blocked,) = client.chat_actions.blocked(paired).items
    assert blocked.jid == ANA_JID and blocked.blocked is True
    with pytest.raises(ConflictError) as refused:
        client.messages.send_text(paired, ANA, "oi")
    assert refused.value.error == "CONTACT_BLOCKED"
    client.chat_actions.block(paired, ANA, blocked=False)
    assert client.chat_actions.blocked(paired).total == 0


def test_labels_are_typed_and_the_async_twins_follow_the_roles(client, paired, key_of_role, ponte) -> None:
    label = client.labels.create(paired, "VIP", 4)
    assert label == Label("1", "VIP", 4)
    assert client.labels.update(paired, "1", color=9) == Label("1", "VIP", 9)
    assert client.labels.add_to_chat(paired, ANA, "1") == ["1"]
    assert [c.id for c in client.chat_actions.list(paired, label_id="1").items] == [ANA_JID]
    assert client.labels.remove_from_chat(paired, ANA, "1") == []
    viewer_key = key_of_role("viewer")

    async def viewer_scenario() -> None:
        async with AsyncClient(base_url=ponte, api_key=viewer_key) as viewer:
            assert (await viewer.labels.list(paired)).items == [Label("1", "VIP", 9)]
            with pytest.raises(PermissionDeniedError):
                await viewer.labels.create(paired, "x", 1)
            with pytest.raises(PermissionDeniedError):
                await viewer.chat_actions.pin(paired, ANA)

    asyncio.run(viewer_scenario())
    assert client.labels.delete(paired, "1") == {"success": True, "id": "1"}
    with pytest.raises(NotFoundError) as gone:
        client.labels.delete(paired, "1")
    assert gone.value.error == "LABEL_NOT_FOUND"
