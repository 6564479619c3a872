"""The WhatsApp driver's status (stories), through neonize: a status is a message of the chat
`status@broadcast`, and so are the contacts' ones the session receives.

| operation | library call |
|---|---|
| text status | `send_message(status@broadcast, Message(extendedTextMessage=...))` (colours, font) |
| image / video status | `upload(bytes, MediaType)`, then `send_message` of an image / video message |
| delete | `revoke_message(status@broadcast, own, id)` |
| contacts' statuses | `Message` events whose chat is `status@broadcast` → `status` events (not `message`) |

Fonts: the API's 0 to 5 are the first six of whatsmeow's `ExtendedTextMessage.FontType` (SYSTEM,
SYSTEM_TEXT, FB_SCRIPT, SYSTEM_BOLD, MORNINGBREEZE_REGULAR, CALISTOGA_REGULAR).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import MediaType

from messaging.engines.base import MediaPayload, StatusPosted
from messaging.engines.status_events import StatusEvent
from messaging.engines.whatsapp import inbound
from messaging.engines.whatsapp.errors import library_errors
from messaging.media import media_save

STATUS_CHAT = "status@broadcast"
FontType = wa.ExtendedTextMessage.FontType
FONTS = (
    FontType.SYSTEM,
    FontType.SYSTEM_TEXT,
    FontType.FB_SCRIPT,
    FontType.SYSTEM_BOLD,
    FontType.MORNINGBREEZE_REGULAR,
    FontType.CALISTOGA_REGULAR,
)
_WHITE = 0xFFFFFFFF


def status_jid() -> lib.JID:
    return lib.JID(User="status", Server="broadcast")


def argb(color: str) -> int:
    """`#RRGGBB` → the opaque ARGB integer WhatsApp stores (0xFFRRGGBB)."""
    return 0xFF000000 | int(color.lstrip("#"), 16)


def color_of(value: int) -> str:
    return f"#{value & 0xFFFFFF:06X}"


def _posted(response: Any) -> StatusPosted:
    stamp = int(response.Timestamp)
    seconds = stamp // 1000 if stamp > 10**11 else stamp
    at = datetime.fromtimestamp(seconds, tz=UTC) if seconds else datetime.now(tz=UTC)
    return StatusPosted(status_id=response.ID, timestamp=at)


def text_status(text: str, color: str, font: int) -> Any:
    return wa.Message(
        extendedTextMessage=wa.ExtendedTextMessage(
            text=text, backgroundArgb=argb(color), textArgb=_WHITE, font=FONTS[font]
        )
    )


def media_status(client: Any, media: MediaPayload) -> Any:
    kind = MediaType.MediaImage if media.type == "image" else MediaType.MediaVideo
    upload = client.upload(media.data, kind)
    common = {
        "URL": upload.url,
        "directPath": upload.DirectPath,
        "mediaKey": upload.MediaKey,
        "fileEncSHA256": upload.FileEncSHA256,
        "fileSHA256": upload.FileSHA256,
        "fileLength": upload.FileLength,
        "mimetype": media.mime_type,
        "caption": media.caption,
    }
    if media.type == "image":
        return wa.Message(imageMessage=wa.ImageMessage(**common))
    return wa.Message(videoMessage=wa.VideoMessage(**common))


def status_events(ev: Any, download: inbound.Download, store: inbound.Store) -> list[StatusEvent] | None:
    """A MessageEv of `status@broadcast` as a `status` event; None for any other chat's message. Kinds a
    status cannot be here (reactions, key distribution, voice statuses) give no event."""
    source = ev.Info.MessageSource
    if inbound.jid_str(source.Chat) != STATUS_CHAT:
        return None
    message = inbound._unwrap(ev.Message)
    info = ev.Info
    base = {
        "id": info.ID,
        "sender": inbound.jid_str(source.Sender),
        "push_name": info.Pushname,
        "timestamp": int(info.Timestamp // 1000 if info.Timestamp > 10**11 else info.Timestamp),
        "from_me": bool(source.IsFromMe),
    }
    if message.HasField("extendedTextMessage") or message.conversation:
        ext = message.extendedTextMessage
        font = FONTS.index(ext.font) if ext.font in FONTS else 0
        color = color_of(ext.backgroundArgb) if ext.backgroundArgb else "#000000"
        text = ext.text or message.conversation
        return [StatusEvent(**base, type="text", text=text, background_color=color, font=font)]
    fields = inbound.content_fields(message, download, store)
    if fields.get("type") in ("image", "video"):
        media = {k: fields.get(k) for k in ("caption", "media_url", "mime_type", "sha256", "size")}
        return [StatusEvent(**base, type=fields["type"], **media)]
    if fields.get("type") == "revoked":
        return [StatusEvent(**{**base, "id": fields["revoked_message_id"]}, type="revoked")]
    return []


class WhatsAppStatus:
    _client: Callable[[str], Any]

    def status_text(self, session_id: str, text: str, background_color: str, font: int) -> StatusPosted:
        client = self._client(session_id)
        with library_errors():
            return _posted(client.send_message(status_jid(), text_status(text, background_color, font)))

    def status_media(self, session_id: str, media: MediaPayload) -> StatusPosted:
        client = self._client(session_id)
        with library_errors():
            posted = _posted(client.send_message(status_jid(), media_status(client, media)))
        stored = media_save(session_id, media.data, media.mime_type, media.file_name)
        return StatusPosted(status_id=posted.status_id, timestamp=posted.timestamp, media_url=stored.url)

    def status_delete(self, session_id: str, status_id: str) -> None:
        client = self._client(session_id)
        own = lib.JID(User="", Server="", IsEmpty=True)  # the session's own message, as for a chat's
        with library_errors():
            client.revoke_message(status_jid(), own, status_id)
