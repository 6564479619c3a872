"""The WhatsApp driver's chat and contact actions and labels (a mixin of WhatsAppDriver), through
neonize's own types and calls. Chat state and labels are WhatsApp's app state: each action is one patch
sent with `send_app_state(PatchInfo)`, built as whatsmeow's `appstate.Build*` functions build them:

| action | patch type | index | version | value |
|---|---|---|---|---|
| archive | REGULAR_LOW | `archive`, chat | 3 | `archiveChatAction {archived, messageRange}`, and unpin |
| pin | REGULAR_LOW | `pin_v1`, chat | 5 | `pinAction {pinned}` |
| mute | REGULAR_HIGH | `mute`, chat | 2 | `muteAction {muted, muteEndTimestamp (ms)}` |
| mark unread | REGULAR_LOW | `markChatAsRead`, chat | 3 | `markChatAsReadAction {read, messageRange}` |
| label edit | REGULAR | `label_edit`, label id | 3 | `labelEditAction {name, color, deleted}` |
| label on a chat | REGULAR | `label_jid`, label id, chat | 3 | `labelAssociationAction {labeled}` |

Blocking is not app state: `update_blocklist(jid, BlocklistAction.BLOCK / UNBLOCK)`. The phone's own
blocks arrive as the library's `Blocklist` event (`blocklist_events`); its chat list's state arrives with
each history sync (`history_state_events`). neonize 0.5.2 does not forward whatsmeow's live app-state
events (Archive, Pin, Mute, MarkChatAsRead, LabelEdit, LabelAssociationChat), so those changes made on the
phone later do not reach a driver session until the next sync (docs/messaging.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waSyncAction import WAWebProtobufSyncAction_pb2 as sync
from neonize.utils.enum import BlocklistAction

from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import ChatArchiveEvent, EngineEvent
from messaging.engines.whatsapp.errors import library_errors
from messaging.engines.whatsapp.inbound import jid_str
from messaging.engines.whatsapp.outbound import to_jid
from messaging.models import Chat

REGULAR_LOW, REGULAR_HIGH, REGULAR = (
    lib.PatchInfo.REGULAR_LOW,
    lib.PatchInfo.REGULAR_HIGH,
    lib.PatchInfo.REGULAR,
)


def _mutation(index: list[str], version: int, **value: Any) -> Any:
    return lib.MutationInfo(Index=index, Version=version, Value=sync.SyncActionValue(**value))


def _patch(kind: int, *mutations: Any) -> Any:
    return lib.PatchInfo(Timestamp=int(timezone.now().timestamp()), Type=kind, Mutations=list(mutations))


def _range(last_message_at: datetime | None) -> Any:
    """The chat's last message time: WhatsApp applies an archive or a read mark up to it."""
    at = last_message_at or timezone.now()
    return sync.SyncActionMessageRange(lastMessageTimestamp=int(at.timestamp()))


def _pin(chat: str, pinned: bool) -> Any:
    return _mutation(["pin_v1", chat], 5, pinAction=sync.PinAction(pinned=pinned))


def archive_patch(chat: str, archived: bool, last_message_at: datetime | None) -> Any:
    action = sync.ArchiveChatAction(archived=archived, messageRange=_range(last_message_at))
    mutations = [_mutation(["archive", chat], 3, archiveChatAction=action)]
    if archived:  # WhatsApp unpins what it archives
        mutations.append(_pin(chat, False))
    return _patch(REGULAR_LOW, *mutations)


def pin_patch(chat: str, pinned: bool) -> Any:
    return _patch(REGULAR_LOW, _pin(chat, pinned))


def mute_patch(chat: str, muted_until: str | None) -> Any:
    if muted_until is None:
        action = sync.MuteAction(muted=False)
    else:
        end_ms = int(datetime.fromisoformat(muted_until).timestamp() * 1000)
        action = sync.MuteAction(muted=True, muteEndTimestamp=end_ms)
    return _patch(REGULAR_HIGH, _mutation(["mute", chat], 2, muteAction=action))


def unread_patch(chat: str, unread: bool, last_message_at: datetime | None) -> Any:
    action = sync.MarkChatAsReadAction(read=not unread, messageRange=_range(last_message_at))
    return _patch(REGULAR_LOW, _mutation(["markChatAsRead", chat], 3, markChatAsReadAction=action))


def label_edit_patch(label_id: str, name: str, color: int, deleted: bool) -> Any:
    action = sync.LabelEditAction(name=name, color=color, deleted=deleted)
    return _patch(REGULAR, _mutation(["label_edit", label_id], 3, labelEditAction=action))


def chat_label_patch(chat: str, label_id: str, labeled: bool) -> Any:
    action = sync.LabelAssociationAction(labeled=labeled)
    return _patch(REGULAR, _mutation(["label_jid", label_id, chat], 3, labelAssociationAction=action))


def blocklist_events(ev: Any) -> list[EngineEvent]:
    """The library's `Blocklist` event: one `contact_block` per change."""
    return [
        ContactBlockEvent(jid=jid_str(change.JID), blocked=change.BlockAction == lib.BlocklistChange.BLOCK)
        for change in ev.Changes
        if change.JID.User
    ]


def history_state_events(ev: Any) -> list[EngineEvent]:
    """The chat state a history sync carries (the phone's list when the session pairs, and each later
    sync): archived, pinned, muted until (`muteEndTime`, Unix seconds) and marked unread, as events, for
    the conversations where they are set."""
    events: list[EngineEvent] = []
    for conversation in ev.Data.conversations:
        chat = conversation.ID
        if not chat:
            continue
        if conversation.archived:
            events.append(ChatArchiveEvent(chat_jid=chat, archived=True))
        if conversation.pinned:
            events.append(ChatPinEvent(chat_jid=chat, pinned=True))
        if conversation.muteEndTime and conversation.muteEndTime > _now():
            until = datetime.fromtimestamp(conversation.muteEndTime, tz=UTC).isoformat()
            events.append(ChatMuteEvent(chat_jid=chat, muted_until=until))
        if conversation.markedAsUnread:
            events.append(ChatUnreadEvent(chat_jid=chat, unread=True))
    return events


def _now() -> int:
    return int(timezone.now().timestamp())


class WhatsAppChatActions:
    _client: Callable[[str], Any]

    def _send_patch(self, session_id: str, patch: Any) -> None:
        client = self._client(session_id)
        with library_errors():
            client.send_app_state(patch)

    @staticmethod
    def _last_message_at(session_id: str, chat: str) -> datetime | None:
        return (
            Chat.objects.filter(session_id=session_id, jid=chat)
            .values_list("last_message_at", flat=True)
            .first()
        )

    def chat_archive(self, session_id: str, chat: str, archived: bool) -> list[EngineEvent]:
        self._send_patch(session_id, archive_patch(chat, archived, self._last_message_at(session_id, chat)))
        events: list[EngineEvent] = [ChatArchiveEvent(chat_jid=chat, archived=archived, timestamp=_now())]
        if archived:
            events.append(ChatPinEvent(chat_jid=chat, pinned=False, timestamp=_now()))
        return events

    def chat_pin(self, session_id: str, chat: str, pinned: bool) -> list[EngineEvent]:
        self._send_patch(session_id, pin_patch(chat, pinned))
        return [ChatPinEvent(chat_jid=chat, pinned=pinned, timestamp=_now())]

    def chat_mute(self, session_id: str, chat: str, muted_until: str | None) -> list[EngineEvent]:
        self._send_patch(session_id, mute_patch(chat, muted_until))
        return [ChatMuteEvent(chat_jid=chat, muted_until=muted_until, timestamp=_now())]

    def chat_unread(self, session_id: str, chat: str, unread: bool) -> list[EngineEvent]:
        self._send_patch(session_id, unread_patch(chat, unread, self._last_message_at(session_id, chat)))
        return [ChatUnreadEvent(chat_jid=chat, unread=unread, timestamp=_now())]

    def contact_block(self, session_id: str, jid: str, blocked: bool) -> list[EngineEvent]:
        client = self._client(session_id)
        action = BlocklistAction.BLOCK if blocked else BlocklistAction.UNBLOCK
        with library_errors():
            client.update_blocklist(to_jid(jid), action)
        return [ContactBlockEvent(jid=jid, blocked=blocked, timestamp=_now())]

    def label_edit(
        self, session_id: str, label_id: str, name: str, color: int, deleted: bool = False
    ) -> list[EngineEvent]:
        self._send_patch(session_id, label_edit_patch(label_id, name, color, deleted))
        edit = LabelEditEvent(
            label_id=label_id, label_name=name, color=color, deleted=deleted, timestamp=_now()
        )
        return [edit]

    def chat_label(self, session_id: str, chat: str, label_id: str, labeled: bool) -> list[EngineEvent]:
        self._send_patch(session_id, chat_label_patch(chat, label_id, labeled))
        return [LabelAssociationEvent(label_id=label_id, chat_jid=chat, labeled=labeled, timestamp=_now())]
