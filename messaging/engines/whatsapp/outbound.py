"""Ponte's commands → library calls: the protobuf messages and client calls of every operation.

Each function takes the session's library client (neonize's NewClient, or the stand-in the tests give)
and plain contract values, and returns contract values. Library failures propagate; the driver maps
them (messaging.engines.whatsapp.errors).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import (
    ChatPresence,
    ChatPresenceMedia,
    MediaType,
    ParticipantChange,
    Presence,
    ReceiptType,
)

from messaging.addressing import is_group, is_newsletter
from messaging.engines.base import (
    Button,
    ContactCard,
    ContactStatus,
    EngineUnsupported,
    GroupInfo,
    MediaPayload,
    Participant,
    ParticipantResult,
    Quoted,
    Sent,
)
from messaging.engines.whatsapp.inbound import jid_str

_UPLOAD_TYPES = {
    "image": MediaType.MediaImage,
    "sticker": MediaType.MediaImage,
    "video": MediaType.MediaVideo,
    "audio": MediaType.MediaAudio,
    "voice": MediaType.MediaAudio,
    "document": MediaType.MediaDocument,
}


def to_jid(value: str) -> Any:
    """`user@server` (or a bare number) as the library's JID."""
    user, _, server = value.partition("@")
    return lib.JID(
        User=user, Server=server or "s.whatsapp.net", RawAgent=0, Device=0, Integrator=0, IsEmpty=False
    )


def sent_of(response: Any, chat: str) -> Sent:
    """The contract's answer from the library's send response (its timestamp in seconds or ms)."""
    stamp = int(response.Timestamp)
    seconds = stamp // 1000 if stamp > 10**11 else stamp
    at = datetime.fromtimestamp(seconds, tz=UTC) if seconds else datetime.now(tz=UTC)
    return Sent(message_id=response.ID, chat=chat, timestamp=at)


def context_info(quoted: Quoted | None, mentions: tuple[str, ...] = ()) -> Any:
    """The reply and the mentions of a message (None when it has neither)."""
    if quoted is None and not mentions:
        return None
    context = wa.ContextInfo(mentionedJID=list(mentions))
    if quoted is not None:
        context.stanzaID = quoted.message_id
        context.participant = quoted.participant
        context.quotedMessage.CopyFrom(wa.Message(conversation=quoted.text))
    return context


def send_text(
    client: Any, to: str, text: str, quoted: Quoted | None = None, mentions: tuple[str, ...] = ()
) -> Sent:
    if quoted is None and not mentions:
        message = wa.Message(conversation=text)
    else:
        message = wa.Message(
            extendedTextMessage=wa.ExtendedTextMessage(text=text, contextInfo=context_info(quoted, mentions))
        )
    return sent_of(client.send_message(to_jid(to), message), to)


def send_reaction(client: Any, chat: str, message_id: str, from_me: bool, sender: str, emoji: str) -> Sent:
    """An empty emoji removes the reaction (WhatsApp's own convention)."""
    target = wa.Message(
        reactionMessage=wa.ReactionMessage(
            key=_key(chat, message_id, from_me, sender),
            text=emoji,
            senderTimestampMS=int(datetime.now(tz=UTC).timestamp() * 1000),
        )
    )
    return sent_of(client.send_message(to_jid(chat), target), chat)


def _key(chat: str, message_id: str, from_me: bool, sender: str) -> Any:
    from neonize.proto.waCommon import WACommon_pb2 as common

    key = common.MessageKey(remoteJID=chat, fromMe=from_me, ID=message_id)
    if is_group(chat) and not from_me and sender:
        key.participant = sender
    return key


def send_contact(client: Any, to: str, card: ContactCard) -> Sent:
    message = wa.Message(contactMessage=wa.ContactMessage(displayName=card.display_name, vcard=card.vcard()))
    return sent_of(client.send_message(to_jid(to), message), to)


def send_contacts(client: Any, to: str, display_name: str, cards: list[ContactCard]) -> Sent:
    contacts = [wa.ContactMessage(displayName=c.display_name, vcard=c.vcard()) for c in cards]
    message = wa.Message(
        contactsArrayMessage=wa.ContactsArrayMessage(displayName=display_name, contacts=contacts)
    )
    return sent_of(client.send_message(to_jid(to), message), to)


def send_location(
    client: Any, to: str, latitude: float, longitude: float, name: str, address: str, quoted: Quoted | None
) -> Sent:
    location = wa.LocationMessage(
        degreesLatitude=latitude, degreesLongitude=longitude, name=name, address=address
    )
    if quoted is not None:
        location.contextInfo.CopyFrom(context_info(quoted))
    return sent_of(client.send_message(to_jid(to), wa.Message(locationMessage=location)), to)


def buttons_message(text: str, buttons: list[Button], footer: str) -> Any:
    """The legacy reply-button form (ButtonsMessage, RESPONSE buttons, no header). Clients that no
    longer render it show the text only or a "can't display" notice."""
    return wa.Message(
        buttonsMessage=wa.ButtonsMessage(
            contentText=text,
            footerText=footer,
            headerType=wa.ButtonsMessage.HeaderType.EMPTY,
            buttons=[
                wa.ButtonsMessage.Button(
                    buttonID=b.button_id,
                    buttonText=wa.ButtonsMessage.Button.ButtonText(displayText=b.button_text),
                    type=wa.ButtonsMessage.Button.Type.RESPONSE,
                )
                for b in buttons
            ],
        )
    )


def buttons_as_text(text: str, buttons: list[Button], footer: str) -> Any:
    """The fallback form: the text, the options numbered, the footer (WHATSAPP_BUTTONS_AS_TEXT)."""
    lines = [text, "", *(f"{i}. {b.button_text}" for i, b in enumerate(buttons, 1))]
    if footer:
        lines += ["", footer]
    return wa.Message(conversation="\n".join(lines))


def send_buttons(
    client: Any, to: str, text: str, buttons: list[Button], footer: str, *, as_text: bool = False
) -> Sent:
    build = buttons_as_text if as_text else buttons_message
    return sent_of(client.send_message(to_jid(to), build(text, buttons, footer)), to)


def delete_message(client: Any, chat: str, message_id: str, from_me: bool, sender: str) -> Sent:
    """Revoke for everyone; `sender` is the author (a group admin deleting someone's message). The
    revocation's own message is reported by the library like every own message."""
    author = to_jid(sender) if (not from_me and sender) else lib.JID(User="", Server="", IsEmpty=True)
    client.revoke_message(to_jid(chat), author, message_id)
    return Sent(message_id=message_id, chat=chat, timestamp=datetime.now(tz=UTC))


def send_media(
    client: Any, to: str, media: MediaPayload, quoted: Quoted | None, mentions: tuple[str, ...] = ()
) -> Sent:
    """Upload the bytes (encrypted by the library), then send the message pointing at them (`mentions`:
    the JIDs its caption mentions, in its contextInfo)."""
    if is_newsletter(to):
        # whatsmeow needs the upload's media handle in the send request; neonize 0.5.2 cannot pass it.
        raise EngineUnsupported("The WhatsApp driver posts text to channels, not media (neonize 0.5.2).")
    message = media_message(client, media, context_info(quoted, mentions))
    return sent_of(client.send_message(to_jid(to), message), to)


def media_message(client: Any, media: MediaPayload, context: Any = None) -> Any:
    """The media message for `media`, its bytes uploaded (`context`: the ContextInfo it carries)."""
    upload = client.upload(media.data, _UPLOAD_TYPES[media.type])
    common = {
        "URL": upload.url,
        "directPath": upload.DirectPath,
        "mediaKey": upload.MediaKey,
        "fileEncSHA256": upload.FileEncSHA256,
        "fileSHA256": upload.FileSHA256,
        "fileLength": upload.FileLength,
        "mimetype": media.mime_type,
    }
    if context is not None:
        common["contextInfo"] = context
    if media.type == "image":
        return wa.Message(imageMessage=wa.ImageMessage(caption=media.caption, **common))
    if media.type == "video":
        return wa.Message(videoMessage=wa.VideoMessage(caption=media.caption, **common))
    if media.type in ("audio", "voice"):
        return wa.Message(audioMessage=audio_message(media, common))
    if media.type == "sticker":
        return wa.Message(stickerMessage=wa.StickerMessage(**common))
    document = wa.DocumentMessage(caption=media.caption, fileName=media.file_name or "file", **common)
    return wa.Message(documentMessage=document)


def audio_message(media: MediaPayload, common: dict[str, Any]) -> Any:
    """An audio, or a voice note (PTT) with its length and waveform: the bar chart WhatsApp's clients
    draw is these 64 bytes, each 0 to 100 (the services converted the audio: messaging.services.audio)."""
    if media.type != "voice":
        return wa.AudioMessage(PTT=False, **common)
    return wa.AudioMessage(PTT=True, seconds=media.seconds, waveform=bytes(media.waveform), **common)


def mark_read(client: Any, chat: str, message_ids: list[str], sender: str) -> None:
    author = to_jid(sender or chat)
    client.mark_read(*message_ids, chat=to_jid(chat), sender=author, receipt=ReceiptType.READ)


def send_presence(client: Any, chat: str, presence: str) -> None:
    if presence in ("available", "unavailable"):
        client.send_presence(Presence.AVAILABLE if presence == "available" else Presence.UNAVAILABLE)
        return
    state = (
        ChatPresence.CHAT_PRESENCE_PAUSED if presence == "paused" else ChatPresence.CHAT_PRESENCE_COMPOSING
    )
    media = (
        ChatPresenceMedia.CHAT_PRESENCE_MEDIA_AUDIO
        if presence == "recording"
        else ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT
    )
    client.send_chat_presence(to_jid(chat), state, media)


def check_contacts(client: Any, numbers: list[str]) -> list[ContactStatus]:
    answers = {a.Query.lstrip("+"): a for a in client.is_on_whatsapp(*[f"+{n}" for n in numbers])}
    results = []
    for number in numbers:
        answer = answers.get(number)
        exists = bool(answer and answer.IsIn)
        jid = jid_str(answer.JID) if exists else f"{number}@s.whatsapp.net"
        results.append(ContactStatus(number=number, jid=jid, exists=exists))
    return results


def set_profile_picture(client: Any, image: bytes, target: str = "") -> None:
    if is_group(target):
        client.set_group_photo(to_jid(target), image)
    else:
        client.set_profile_photo(image)


def group_info(info: Any) -> GroupInfo:
    return GroupInfo(
        jid=jid_str(info.JID),
        subject=info.GroupName.Name,
        subject_time=int(info.GroupName.NameSetAt),
        creation=int(info.GroupCreated),
        owner=jid_str(info.OwnerJID) if info.OwnerJID.User else "",
        participants=tuple(
            Participant(jid=jid_str(p.JID), admin=bool(p.IsAdmin or p.IsSuperAdmin))
            for p in info.Participants
        ),
        description=info.GroupTopic.Topic,
        announce=bool(info.GroupAnnounce.IsAnnounce),
        locked=bool(info.GroupLocked.isLocked),
    )


def group_create(client: Any, subject: str, participants: list[str]) -> GroupInfo:
    return group_info(client.create_group(subject, [to_jid(p) for p in participants]))


def group_list(client: Any) -> list[GroupInfo]:
    return [group_info(g) for g in client.get_joined_groups()]


def group_change(client: Any, group: str, participants: list[str], admin: bool) -> list[ParticipantResult]:
    action = ParticipantChange.PROMOTE if admin else ParticipantChange.DEMOTE
    answers = client.update_group_participants(to_jid(group), [to_jid(p) for p in participants], action)
    by_jid = {jid_str(a.JID): a for a in answers}
    done = "promoted" if admin else "demoted"
    results = []
    for jid in participants:
        answer = by_jid.get(jid)
        if answer is None or answer.Error == 404:
            results.append(ParticipantResult(jid=jid, status="not_a_participant"))
        elif answer.Error:
            results.append(ParticipantResult(jid=jid, status="not_allowed"))
        else:
            results.append(ParticipantResult(jid=jid, status=done))
    return results
