"""Forwarding: a message of the history sent again to another chat, marked forwarded.

What is copied comes from the history: a text, a media message from its stored bytes (messaging.media,
by the sha256 the history keeps), a location, contact cards (their vCards), a poll (sent as a new poll
with the same question and options, whose votes are counted apart). The copy takes the one send path
(quota, engine, record) and carries `forwarded: true` in the history and in its `message` event.
"""

from __future__ import annotations

from typing import Any

from core.errors import ValidationFailed
from messaging.engines.base import ForwardCard, ForwardContent, MediaPayload, OutgoingForward
from messaging.errors import MessageAlreadyDeleted, OperationNotSupported
from messaging.media import media_storage
from messaging.models import Message, Session
from messaging.services.engine import engine_for
from messaging.services.messages import message_get, message_send
from messaging.vcard import vcard

TEXT_TYPES = ("text", "template")
MEDIA_TYPES = ("image", "video", "audio", "document", "sticker")
FORWARDABLE = (*TEXT_TYPES, *MEDIA_TYPES, "location", "contacts", "contact", "poll")


def _original(session: Session, chat: str, message_id: str) -> Message:
    message = message_get(session, chat, message_id)
    if message.status == Message.Status.DELETED:
        raise MessageAlreadyDeleted("A message deleted for everyone cannot be forwarded.")
    if message.type not in FORWARDABLE:
        raise ValidationFailed(
            f"Messages of type {message.type!r} cannot be forwarded (text, media, location, contacts "
            "and polls can).",
            extra={"details": [f"messageId: a {message.type} message cannot be forwarded."]},
        )
    return message


def _stored_bytes(session: Session, message: Message) -> bytes:
    digest = str(message.content.get("sha256") or "")
    path = f"{session.pk}/{digest}"
    storage = media_storage()
    if not digest or not storage.exists(path):
        raise ValidationFailed(
            f"The media of message {message.message_id!r} is not stored (it could not be downloaded when "
            "it arrived), so it cannot be forwarded."
        )
    with storage.open(path, "rb") as stored:
        return stored.read()


def _cards(content: dict[str, Any]) -> tuple[ForwardCard, ...]:
    """The history's contact cards (sent through the API: fields; received: vCards) as vCards."""
    cards = []
    for card in content.get("contacts") or []:
        name = str(card.get("displayName") or card.get("display_name") or "")
        text = card.get("vcard") or ""
        if not text:
            number = str(card.get("phoneNumber") or card.get("phone_number") or "")
            text = vcard(name, number, str(card.get("organization") or ""))
        cards.append(ForwardCard(display_name=name, vcard=text))
    if not cards and content.get("vcard"):
        cards.append(ForwardCard(display_name=str(content.get("displayName") or ""), vcard=content["vcard"]))
    return tuple(cards)


def forward_content(session: Session, message: Message) -> ForwardContent:
    """What an engine sends again for `message` of the history."""
    content = message.content
    if message.type in TEXT_TYPES:
        return ForwardContent(type="text", text=str(content.get("text") or ""))
    if message.type in MEDIA_TYPES:
        voice = message.type == "audio" and bool(content.get("voice"))
        media = MediaPayload(
            type="voice" if voice else message.type,
            data=_stored_bytes(session, message),
            mime_type=str(content.get("mimeType") or "application/octet-stream"),
            file_name=str(content.get("fileName") or ""),
            caption=str(content.get("caption") or ""),
        )
        return ForwardContent(type="media", media=media)
    if message.type == "location":
        place = content.get("location") or {}
        return ForwardContent(
            type="location",
            latitude=float(place.get("latitude") or 0),
            longitude=float(place.get("longitude") or 0),
            name=str(place.get("name") or ""),
            address=str(place.get("address") or ""),
        )
    if message.type == "poll":
        poll = content.get("poll") or {}
        return ForwardContent(
            type="poll",
            name=str(poll.get("name") or ""),
            options=tuple(str(o) for o in poll.get("options") or ()),
            selectable_count=int(poll.get("selectableCount") or 1),
        )
    cards = _cards(content)
    return ForwardContent(type="contacts", display_name=str(content.get("displayName") or ""), cards=cards)


def message_forward(
    *, session: Session, to: str, chat: str, message_id: str, savepoint: bool = True
) -> Message:
    """Forward message `message_id` of `chat` to `to`: 404 MESSAGE_NOT_FOUND when the history does not
    have it; 400 for a kind that cannot be forwarded or media whose bytes were never stored; 400
    OPERATION_NOT_SUPPORTED on channels without forwarding (the Graph API has none)."""
    if session.official:
        name = engine_for(session).channel_name(session.provider)
        raise OperationNotSupported(
            f"{name} sessions cannot forward messages (the Graph API has no forward)."
        )
    original = _original(session, chat, message_id)
    type_ = "contacts" if original.type == "contact" else original.type
    outgoing = OutgoingForward(
        to=to,
        content=forward_content(session, original),
        original_type="text" if type_ == "template" else type_,
        original=dict(original.content),
    )
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)
