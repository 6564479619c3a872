"""Sending media (`POST /api/messages/media`): the bytes from base64 or a URL, then the engine.

The URL is fetched here, in the web process, through the SSRF-safe transport (net.transport), so an
engine only ever receives bytes; base64 and URL alike are held to MESSAGING_MEDIA_MAX_BYTES. The send
counts against the plan's daily quota like every other send.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re

from django.conf import settings

from core.errors import ValidationFailed
from messaging.engines.base import MediaPayload, OutgoingMedia, OutgoingMediaLink
from messaging.errors import OperationNotSupported
from messaging.media import media_save
from messaging.models import Message, Session
from messaging.services.audio import MIME as VOICE_MIME
from messaging.services.audio import voice_note
from messaging.services.engine import engine_for
from messaging.services.messages import QuotedInput, message_send
from net.transport import TransportError, safe_get

_DATA_URI = re.compile(r"^data:(?P<type>[\w/+.-]+);base64,", re.IGNORECASE)
# Used when neither the caller nor the URL's answer says what the bytes are.
DEFAULT_MIME = {
    "image": "image/jpeg",
    "video": "video/mp4",
    "audio": "audio/mpeg",
    "voice": "audio/ogg; codecs=opus",
    "document": "application/octet-stream",
    "sticker": "image/webp",
}
# Which families of types each kind accepts (documents take anything).
_FAMILIES = {"image": ("image/",), "video": ("video/",), "audio": ("audio/",), "voice": ("audio/",)}


def media_bytes_load(*, url: str = "", data: str = "") -> tuple[bytes, str]:
    """(bytes, declared content type) from exactly one of `url` or base64 `data`; 400 otherwise."""
    max_bytes = settings.MESSAGING_MEDIA_MAX_BYTES
    if bool(url) == bool(data):
        raise ValidationFailed("Give exactly one of `url` or `base64`.")
    if url:
        try:
            timeout = settings.MESSAGING_MEDIA_FETCH_TIMEOUT
            content, declared = safe_get(url, max_bytes=max_bytes, timeout=timeout)
        except TransportError as exc:  # a message fit for the caller; net.transport logs the details
            raise ValidationFailed(f"url: the URL could not be used: {exc}.") from None
        return content, declared
    match = _DATA_URI.match(data)
    declared = match.group("type").lower() if match else ""
    raw = _DATA_URI.sub("", data, count=1)
    # Decoded size is 3/4 of the text: refuse an oversized body before decoding it.
    if len(raw) * 3 // 4 > max_bytes + 2:
        raise ValidationFailed(f"base64: the media is larger than {max_bytes} bytes.")
    try:
        content = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed("base64: not valid base64.") from None
    if len(content) > max_bytes:
        raise ValidationFailed(f"base64: the media is larger than {max_bytes} bytes.")
    if not content:
        raise ValidationFailed("base64: the media is empty.")
    return content, declared


def media_mime(type_: str, given: str, declared: str, file_name: str) -> str:
    """The media's type: the caller's, else the URL's answer or data URI, else the file name's, else
    the kind's default. A type of the wrong family for the kind is refused."""
    mime = (given or declared or mimetypes.guess_type(file_name)[0] or "").lower().strip()
    if mime in ("", "application/octet-stream") and type_ != "document":
        mime = DEFAULT_MIME[type_]
    mime = mime or DEFAULT_MIME[type_]
    families = _FAMILIES.get(type_)
    if families and not mime.startswith(families):
        raise ValidationFailed(f"mimeType: {mime} is not a type for {type_} messages.")
    if type_ == "sticker" and mime != "image/webp":
        raise ValidationFailed("mimeType: stickers are image/webp.")
    return mime


def message_send_media(
    *,
    session: Session,
    to: str,
    type_: str,
    url: str = "",
    data: str = "",
    caption: str = "",
    file_name: str = "",
    mime_type: str = "",
    quoted: QuotedInput | None = None,
    mentions: tuple[str, ...] = (),
    savepoint: bool = True,
) -> Message:
    """`savepoint=False`: the caller's transaction fails as a whole on any error (messages.message_send).
    `mentions`: JIDs the caption mentions (messaging.services.mentions resolved them)."""
    by_link = engine_for(session).media_by_link
    if by_link and type_ == "voice":
        return _official_voice_send(session=session, to=to, url=url, data=data)
    if by_link:
        return _official_media_send(
            session=session, to=to, type_=type_, url=url, caption=caption, file_name=file_name
        )
    content, declared = media_bytes_load(url=url, data=data)
    mime = media_mime(type_, mime_type, declared, file_name)
    note = None
    if type_ == "voice":
        # Before the send opens any transaction: decoding and encoding are CPU work.
        note = voice_note(content, field="url" if url else "base64")
        content, mime = note.data, VOICE_MIME
    payload = MediaPayload(
        type=type_,
        data=content,
        mime_type=mime,
        file_name=file_name,
        caption=caption,
        seconds=note.seconds if note else 0,
        waveform=note.waveform if note else (),
    )
    quote = quoted.as_quoted() if quoted else None
    outgoing = OutgoingMedia(to=to, media=payload, quoted=quote, mentions=mentions)
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)


def _official_media_send(
    *, session: Session, to: str, type_: str, url: str, caption: str, file_name: str
) -> Message:
    """Official channels take media by link: Meta fetches the URL itself, so Ponte neither downloads
    nor uploads the bytes (and has none to send for `base64`)."""
    if not url:
        name = engine_for(session).channel_name(session.provider)
        raise OperationNotSupported(f"{name} sessions send media by `url` only (Meta fetches it).")
    kind = "audio" if type_ == "voice" else type_
    outgoing = OutgoingMediaLink(to=to, media_kind=kind, link=url, caption=caption, file_name=file_name)
    return message_send(session=session, outgoing=outgoing)


def _official_voice_send(*, session: Session, to: str, url: str, data: str) -> Message:
    """A voice note on an official channel: converted here like on every engine, stored, and given to
    Meta as a signed Ponte link (`GET /api/media/<token>`, the address Meta already calls back), so any
    format uploaded by `url` or `base64` plays as a voice note. WhatsApp Cloud sends it as `audio` with
    `voice: true`; Messenger and Instagram as an audio attachment."""
    content, _declared = media_bytes_load(url=url, data=data)
    note = voice_note(content, field="url" if url else "base64")
    stored = media_save(str(session.pk), note.data, VOICE_MIME, "voice.ogg")
    outgoing = OutgoingMediaLink(
        to=to, media_kind="voice", link=stored.url, seconds=note.seconds, waveform=note.waveform
    )
    return message_send(session=session, outgoing=outgoing)
