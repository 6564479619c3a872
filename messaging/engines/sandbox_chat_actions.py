"""The sandbox's chat and contact actions and labels (a mixin of SandboxEngine).

Its "WhatsApp" accepts every action on a paired session and answers with the events the phone would
sync, stamped with the time of the call (archiving also unpins, as WhatsApp does). Rules: numbers
ending in ``0000`` are not on WhatsApp, so they cannot be blocked (400); a chat in a group the session
is not in cannot be archived, pinned, muted, marked or labelled (404, as group operations answer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from messaging.addressing import is_group
from messaging.engines.base import EngineRefused
from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import ChatArchiveEvent, EngineEvent
from messaging.models import SandboxDevice


def _now() -> int:
    return int(timezone.now().timestamp())


class SandboxChatActions:
    _paired: Callable[[str], SandboxDevice]
    _own_group: Callable[[SandboxDevice, str], object]

    def _chat_known(self, session_id: str, chat: str) -> None:
        device = self._paired(session_id)
        if is_group(chat):
            self._own_group(device, chat)  # 404 when the session is not in the group

    @transaction.atomic
    def chat_archive(self, session_id: str, chat: str, archived: bool) -> list[EngineEvent]:
        self._chat_known(session_id, chat)
        events: list[EngineEvent] = [ChatArchiveEvent(chat_jid=chat, archived=archived, timestamp=_now())]
        if archived:  # WhatsApp unpins what it archives
            events.append(ChatPinEvent(chat_jid=chat, pinned=False, timestamp=_now()))
        return events

    @transaction.atomic
    def chat_pin(self, session_id: str, chat: str, pinned: bool) -> list[EngineEvent]:
        self._chat_known(session_id, chat)
        return [ChatPinEvent(chat_jid=chat, pinned=pinned, timestamp=_now())]

    @transaction.atomic
    def chat_mute(self, session_id: str, chat: str, muted_until: str | None) -> list[EngineEvent]:
        self._chat_known(session_id, chat)
        return [ChatMuteEvent(chat_jid=chat, muted_until=muted_until, timestamp=_now())]

    @transaction.atomic
    def chat_unread(self, session_id: str, chat: str, unread: bool) -> list[EngineEvent]:
        self._chat_known(session_id, chat)
        return [ChatUnreadEvent(chat_jid=chat, unread=unread, timestamp=_now())]

    @transaction.atomic
    def contact_block(self, session_id: str, jid: str, blocked: bool) -> list[EngineEvent]:
        self._paired(session_id)
        if jid.split("@", 1)[0].endswith("0000"):
            raise EngineRefused(f"{jid} is not on WhatsApp.")
        return [ContactBlockEvent(jid=jid, blocked=blocked, timestamp=_now())]

    @transaction.atomic
    def label_edit(
        self, session_id: str, label_id: str, name: str, color: int, deleted: bool = False
    ) -> list[EngineEvent]:
        self._paired(session_id)
        edit = LabelEditEvent(label_id=label_id, label_name=name, color=color, deleted=deleted)
        return [dataclasses.replace(edit, timestamp=_now())]

    @transaction.atomic
    def chat_label(self, session_id: str, chat: str, label_id: str, labeled: bool) -> list[EngineEvent]:
        self._chat_known(session_id, chat)
        return [LabelAssociationEvent(label_id=label_id, chat_jid=chat, labeled=labeled, timestamp=_now())]
