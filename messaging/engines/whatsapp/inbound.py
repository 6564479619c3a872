"""Library events → Ponte's typed events (messaging.engines.events). Pure functions over neonize's
protobuf event types; media bytes come through `download(message) -> bytes` and are stored by `store`
(messaging.media.media_save bound to the session), so this module has no I/O of its own."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from messaging.engines.events import (
    ButtonRef,
    CallEvent,
    Card,
    DisconnectedEvent,
    EngineEvent,
    GroupChange,
    GroupJoinEvent,
    GroupLeaveEvent,
    GroupUpdateEvent,
    HealthEvent,
    Location,
    Member,
    MessageAckEvent,
    MessageEvent,
    PresenceEvent,
    QuotedRef,
    Reaction,
)
from messaging.engines.whatsapp.lists_inbound import forwarded_of, link_preview_of, list_fields
from messaging.media import StoredMedia

logger = logging.getLogger(__name__)
Download = Callable[[Any], bytes]
Store = Callable[[bytes, str, str], StoredMedia]

# Receipt types (neonize's Receipt.Type enum names) → message_ack status; others are not acks.
_ACKS = {"DELIVERED": "delivered", "READ": "read", "READ_SELF": "read", "PLAYED": "played"}
_MEDIA_FIELDS = {
    "imageMessage": "image",
    "videoMessage": "video",
    "audioMessage": "audio",
    "documentMessage": "document",
    "stickerMessage": "sticker",
}


def jid_str(jid: Any) -> str:
    """A JID proto as Ponte writes it: `user@server`, the device part dropped."""
    if not jid.User:
        return jid.Server
    return f"{jid.User}@{jid.Server}"


def _unwrap(message: Any) -> Any:
    """The content inside the wrappers WhatsApp puts around it (ephemeral, view once, document with
    caption, sent from another device of the account)."""
    for wrapper in ("ephemeralMessage", "viewOnceMessage", "viewOnceMessageV2", "documentWithCaptionMessage"):
        if message.HasField(wrapper):
            return _unwrap(getattr(message, wrapper).message)
    if message.HasField("deviceSentMessage"):
        return _unwrap(message.deviceSentMessage.message)
    return message


def _quoted(context: Any) -> QuotedRef | None:
    if context is None or not context.stanzaID:
        return None
    return QuotedRef(message_id=context.stanzaID, participant=context.participant)


def content_fields(message: Any, download: Download, store: Store) -> dict[str, Any]:
    """The type and fields of one message's content (the message contract's fields plus the media facts),
    with `forwarded` when its context says so, and the people it mentions."""
    message = _unwrap(message)
    fields = _kind_fields(message, download, store)
    if fields:
        fields["forwarded"] = forwarded_of(message)
        mentioned = mentions_of(message)
        if mentioned:
            fields["mentions"] = mentioned
    return fields


def mentions_of(message: Any) -> tuple[str, ...]:
    """The JIDs a message's content mentions (its `contextInfo.mentionedJID`, whichever kind it is)."""
    for descriptor, content in message.ListFields():
        kind = descriptor.message_type
        if kind is not None and "contextInfo" in kind.fields_by_name and content.HasField("contextInfo"):
            return tuple(dict.fromkeys(j for j in content.contextInfo.mentionedJID if j))
    return ()


def _kind_fields(message: Any, download: Download, store: Store) -> dict[str, Any]:
    if message.HasField("extendedTextMessage"):
        ext = message.extendedTextMessage
        preview = link_preview_of(ext)
        return {"type": "text", "text": ext.text, "quoted": _quoted(ext.contextInfo), "link_preview": preview}
    if message.conversation:
        return {"type": "text", "text": message.conversation}
    for field, kind in _MEDIA_FIELDS.items():
        if message.HasField(field):
            return _media(message, getattr(message, field), kind, download, store)
    if message.HasField("locationMessage"):
        loc = message.locationMessage
        where = Location(loc.degreesLatitude, loc.degreesLongitude, loc.name, loc.address)
        return {"type": "location", "location": where, "quoted": _quoted(loc.contextInfo)}
    if message.HasField("contactMessage"):
        card = message.contactMessage
        return {"type": "contacts", "contacts": (Card(display_name=card.displayName, vcard=card.vcard),)}
    if message.HasField("contactsArrayMessage"):
        cards = message.contactsArrayMessage
        return {
            "type": "contacts",
            "display_name": cards.displayName,
            "contacts": tuple(Card(display_name=c.displayName, vcard=c.vcard) for c in cards.contacts),
        }
    if message.HasField("reactionMessage"):
        react = message.reactionMessage
        return {"type": "reaction", "reaction": Reaction(message_id=react.key.ID, emoji=react.text)}
    if message.HasField("protocolMessage") and message.protocolMessage.type == 0:  # REVOKE
        key = message.protocolMessage.key
        return {
            "type": "revoked",
            "revoked_message_id": key.ID,
            "revoked_sender": key.participant or key.remoteJID,
            "revoked_from_me": key.fromMe,
        }
    if message.HasField("buttonsResponseMessage"):
        reply = message.buttonsResponseMessage
        return {
            "type": "button_reply",
            "selected_id": reply.selectedButtonID,
            "selected_title": reply.selectedDisplayText,
            "quoted": _quoted(reply.contextInfo),
        }
    listed = list_fields(message)
    if listed is not None:
        return listed
    if message.HasField("buttonsMessage"):
        sent = message.buttonsMessage
        buttons = tuple(ButtonRef(b.buttonID, b.buttonText.displayText) for b in sent.buttons)
        return {"type": "buttons", "text": sent.contentText, "footer": sent.footerText, "buttons": buttons}
    return {}


def _media(message: Any, media: Any, kind: str, download: Download, store: Store) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": kind, "mime_type": media.mimetype, "quoted": _quoted(media.contextInfo)}
    if kind in ("image", "video", "document"):
        fields["caption"] = media.caption
    if kind == "document":
        fields["file_name"] = media.fileName
    if kind == "audio":
        fields["voice"] = bool(media.PTT)
        if media.PTT:
            fields["seconds"] = int(media.seconds)
            fields["waveform"] = tuple(media.waveform) if media.waveform else None
    if kind == "sticker":
        fields["animated"] = bool(media.isAnimated)
    if kind in ("image", "video") and media.viewOnce:
        fields["view_once"] = True
    try:
        stored = store(download(message), media.mimetype, fields.get("file_name") or "")
    except Exception:  # expired on WhatsApp's servers, network: the message still arrives, linkless
        logger.warning("Media of a %s message could not be downloaded", kind, exc_info=True)
        return fields
    fields.update(media_url=stored.url, sha256=stored.sha256, size=stored.size)
    return fields


def message_event(ev: Any, download: Download, store: Store) -> MessageEvent | None:
    """A MessageEv; None for what is not a message of a chat (key distribution, unknown kinds)."""
    fields = content_fields(ev.Message, download, store)
    if not fields:
        return None
    info, source = ev.Info, ev.Info.MessageSource
    sender = jid_str(source.Sender)
    # The sender as WhatsApp gave it, and both its ids: itself and its alternative (SenderAlt), if any.
    ids = [sender, jid_str(source.SenderAlt) if source.SenderAlt.Server else ""]
    return MessageEvent(
        id=info.ID,
        chat_jid=jid_str(source.Chat),
        sender=sender,
        push_name=info.Pushname,
        timestamp=int(info.Timestamp // 1000 if info.Timestamp > 10**11 else info.Timestamp),
        from_me=source.IsFromMe,
        sender_lid=next((j for j in ids if j.endswith("@lid")), None),
        sender_pn=next((j for j in ids if j.endswith("@s.whatsapp.net")), None),
        **{k: v for k, v in fields.items() if v is not None},
    )


def history_events(ev: Any, download: Download, store: Store) -> list[MessageEvent]:
    """A HistorySyncEv: every message of every conversation, flagged `is_history`."""
    events = []
    for conversation in ev.Data.conversations:
        for item in conversation.messages:
            info = item.message
            fields = content_fields(info.message, download, store)
            if not fields:
                continue
            chat = info.key.remoteJID or conversation.ID
            events.append(
                MessageEvent(
                    id=info.key.ID,
                    chat_jid=chat,
                    sender=info.participant or info.key.participant or chat,
                    push_name=info.pushName,
                    timestamp=int(info.messageTimestamp),
                    from_me=info.key.fromMe,
                    is_history=True,
                    **{k: v for k, v in fields.items() if v is not None},
                )
            )
    return events


def receipt_events(ev: Any, type_name: str) -> list[MessageAckEvent]:
    status = _ACKS.get(type_name)
    if status is None:
        return []
    source = ev.MessageSource
    return [
        MessageAckEvent(
            message_id=message_id,
            chat_jid=jid_str(source.Chat),
            status=status,
            recipient=jid_str(source.Sender),
            timestamp=int(ev.Timestamp // 1000 if ev.Timestamp > 10**11 else ev.Timestamp) or None,
        )
        for message_id in ev.MessageIDs
    ]


def presence_event(ev: Any) -> PresenceEvent:
    return PresenceEvent(
        sender=jid_str(ev.From),
        presence="unavailable" if ev.Unavailable else "available",
        last_seen=int(ev.LastSeen) or None,
    )


def chat_presence_event(ev: Any) -> PresenceEvent:
    """Typing (`composing`), recording audio (`recording`) or stopped (`paused`) in a chat."""
    source = ev.MessageSource
    fields = ev.DESCRIPTOR.fields_by_name
    state = fields["State"].enum_type.values_by_number[ev.State].name if ev.State else "PAUSED"
    media = fields["Media"].enum_type.values_by_number[ev.Media].name if ev.Media else "TEXT"
    presence = ("recording" if media == "AUDIO" else "composing") if state == "COMPOSING" else "paused"
    return PresenceEvent(sender=jid_str(source.Sender), presence=presence, chat_jid=jid_str(source.Chat))


def connection_events(name: str, ev: Any) -> list[EngineEvent]:
    """Why the connection ended, for the library's connection event classes (by class name)."""
    if name == "LoggedOut":
        return [DisconnectedEvent(reason="logged_out")]
    if name == "StreamReplaced":
        return [DisconnectedEvent(reason="replaced")]
    if name == "TemporaryBan":
        return [HealthEvent(status="BLOCKED", reason="banned"), DisconnectedEvent(reason="banned")]
    if name == "StreamError":
        return [DisconnectedEvent(reason="stream_error")]
    if name == "ConnectFailure":
        banned = "ban" in str(ev.Message).lower() or int(ev.Reason) in (402, 403)
        return [DisconnectedEvent(reason="banned" if banned else "connect_failure")]
    if name == "ClientOutdated":
        return [DisconnectedEvent(reason="client_outdated")]
    if name == "Disconnected":
        return [DisconnectedEvent(reason="connection_lost")]
    if name == "KeepAliveTimeout":
        return [HealthEvent(status="LIMITED", reason="keepalive_timeout")]
    if name == "KeepAliveRestored":
        return [HealthEvent(status="AVAILABLE")]
    return []


def _members(info: Any) -> tuple[Member, ...]:
    return tuple(
        Member(jid=jid_str(p.JID), admin=bool(p.IsAdmin or p.IsSuperAdmin)) for p in info.Participants
    )


def group_event(
    kind: type[GroupChange], info: Any, participants: list[str], by: str, at: int = 0
) -> GroupChange:
    """A group change with the group as it is now (`info`: the library's GroupInfo)."""
    return kind(
        group=jid_str(info.JID),
        participants=tuple(participants),
        by=by,
        subject=info.GroupName.Name,
        subject_time=int(info.GroupName.NameSetAt),
        creation=int(info.GroupCreated),
        owner=jid_str(info.OwnerJID) if info.OwnerJID.User else "",
        members=_members(info),
        timestamp=at or None,
    )


def joined_group_event(ev: Any, own: str) -> GroupJoinEvent:
    """JoinedGroupEv: the session was added to (or created) a group."""
    by = jid_str(ev.Sender) if ev.Sender.User else ""
    return group_event(GroupJoinEvent, ev.GroupInfo, [own], by)


def group_info_events(ev: Any, info: Any) -> list[GroupChange]:
    """GroupInfoEv (joins, leaves, a new name), with `info` the group fetched after the change."""
    by = jid_str(ev.Sender) if ev.Sender.User else ""
    at = int(ev.Timestamp // 1000 if ev.Timestamp > 10**11 else ev.Timestamp)
    events: list[GroupChange] = []
    if ev.Join:
        events.append(group_event(GroupJoinEvent, info, [jid_str(j) for j in ev.Join], by, at))
    if ev.Leave:
        events.append(group_event(GroupLeaveEvent, info, [jid_str(j) for j in ev.Leave], by, at))
    changed = [name for field, name in _GROUP_CHANGES if ev.HasField(field)]
    if ev.Promote or ev.Demote:
        changed.append("admins")
    if changed:
        update = group_event(GroupUpdateEvent, info, [], by, at)
        events.append(
            dataclasses.replace(
                update,
                changed=tuple(changed),
                description=info.GroupTopic.Topic if "description" in changed else None,
                announce=bool(info.GroupAnnounce.IsAnnounce) if "announce" in changed else None,
                locked=bool(info.GroupLocked.isLocked) if "locked" in changed else None,
            )
        )
    return events


# The fields of a GroupInfoEv that change the group itself, and the names `group_update` gives them.
_GROUP_CHANGES = (
    ("Name", "subject"),
    ("Topic", "description"),
    ("Announce", "announce"),
    ("Locked", "locked"),
)


def call_event(ev: Any, status: str) -> CallEvent:
    meta = ev.basicCallMeta
    return CallEvent(caller=jid_str(getattr(meta, "from")), call_id=meta.callID, status=status)
