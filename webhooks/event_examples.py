"""One example of each event registered webhooks receive, written with the typed event contract (so an
example cannot drift from what is sent: tests validate each against its schema)."""

from __future__ import annotations

from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import (
    CallEvent,
    ChatArchiveEvent,
    ConnectedEvent,
    DisconnectedEvent,
    EngineEvent,
    GroupJoinEvent,
    GroupLeaveEvent,
    GroupUpdateEvent,
    HealthEvent,
    Member,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    PollVoteEvent,
    PresenceEvent,
    QrEvent,
)
from messaging.engines.status_events import StatusEvent

SESSION_ID = "8f0d2a8e-3c1b-4f6e-9d55-0b7f3b1f2a10"
TIMESTAMP = "2026-11-22T04:00:00.123Z"
_AT = 1763784000
_SELF = "5511900000001@s.whatsapp.net"
_CONTACT = "5511999990000@s.whatsapp.net"
_GROUP = "120363025246125486@g.us"
_MEMBERS = (Member(_SELF, admin=True), Member(_CONTACT))


def _group(cls: type[GroupJoinEvent | GroupLeaveEvent | GroupUpdateEvent], **fields: object) -> EngineEvent:
    return cls(
        group=_GROUP,
        by=_SELF,
        subject="Clientes VIP",
        subject_time=_AT - 700,
        creation=_AT - 10_000,
        owner=_SELF,
        members=_MEMBERS,
        timestamp=_AT,
        **fields,
    )


EXAMPLES: dict[str, EngineEvent] = {
    "message": MessageEvent(
        id="3EB0C431A2B5D6E7F801",
        chat_jid=_CONTACT,
        sender=_CONTACT,
        push_name="Maria",
        text="Olá!",
        timestamp=_AT,
    ),
    "message_ack": MessageAckEvent(
        message_id="3EB0C431A2B5D6E7F802", chat_jid=_CONTACT, status="read", recipient=_CONTACT, timestamp=_AT
    ),
    "connected": ConnectedEvent(jid=_SELF, phone="5511900000001", push_name="Loja", platform="android"),
    "disconnected": DisconnectedEvent(reason="logout", timestamp=_AT),
    "qr": QrEvent(qr_code="2@AbCdEf0123456789,xyz==", expires_at="2026-11-22T04:01:00.000Z", serial=1),
    "group_join": _group(GroupJoinEvent, participants=(_CONTACT,)),
    "group_leave": _group(GroupLeaveEvent, participants=(_CONTACT,)),
    "call": CallEvent(caller=_CONTACT, call_id="C0FFEE", push_name="Maria", timestamp=_AT),
    "presence": PresenceEvent(sender=_CONTACT, presence="composing", chat_jid=_CONTACT, timestamp=_AT),
    "chat_archive": ChatArchiveEvent(chat_jid=_CONTACT, archived=True, timestamp=_AT),
    "group_update": _group(GroupUpdateEvent, changed=("announce",), announce=True),
    "health": HealthEvent(status="AVAILABLE", timestamp=_AT),
    "poll_vote": PollVoteEvent(
        poll_message_id="3EB0C431A2B5D6E7F803",
        voter=_CONTACT,
        selected_options=("Sim",),
        chat_jid=_CONTACT,
        timestamp=_AT,
    ),
    "message_edited": MessageEditedEvent(
        message_id="3EB0C431A2B5D6E7F801",
        chat_jid=_CONTACT,
        text="Olá, tudo bem?",
        edited_at=TIMESTAMP,
        sender=_CONTACT,
    ),
    "chat_pin": ChatPinEvent(chat_jid=_CONTACT, pinned=True, timestamp=_AT),
    "chat_mute": ChatMuteEvent(chat_jid=_GROUP, muted_until="2026-11-23T04:00:00+00:00", timestamp=_AT),
    "chat_unread": ChatUnreadEvent(chat_jid=_CONTACT, unread=True, timestamp=_AT),
    "contact_block": ContactBlockEvent(jid=_CONTACT, blocked=True, timestamp=_AT),
    "label_edit": LabelEditEvent(label_id="1", label_name="Novo cliente", color=4, timestamp=_AT),
    "label_association": LabelAssociationEvent(label_id="1", chat_jid=_CONTACT, labeled=True, timestamp=_AT),
    "status": StatusEvent(
        id="3EB0C431A2B5D6E7F8A0",
        sender=_CONTACT,
        push_name="Maria",
        type="text",
        text="Bom dia!",
        timestamp=_AT,
        background_color="#25D366",
        font=2,
    ),
}


def example_body(name: str, data: dict[str, object]) -> dict[str, object]:
    return {"event": name, "session_id": SESSION_ID, "data": data, "timestamp": TIMESTAMP}
