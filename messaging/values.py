"""The values messaging's engines take and return: small frozen dataclasses of plain data.

They live outside `messaging.engines` because the API's serializers build them too (a contact card, a
button, a group) and views import no engine; the engines re-export them from `messaging.engines.base`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from messaging.vcard import vcard


@dataclass(frozen=True)
class QrCode:
    code: str
    expires_at: datetime


@dataclass(frozen=True)
class ConnectResult:
    status: str  # "qr" or "connected"
    qr: QrCode | None = None


@dataclass(frozen=True)
class PairingCode:
    code: str  # e.g. "ABCD-EFGH"
    phone: str
    expires_at: datetime


@dataclass(frozen=True)
class Quoted:
    """The message being replied to."""

    message_id: str
    participant: str = ""  # its sender's JID, in groups
    text: str = ""


@dataclass(frozen=True)
class ContactCard:
    display_name: str
    phone_number: str  # digits only, with country code
    organization: str = ""

    def vcard(self) -> str:
        return vcard(self.display_name, self.phone_number, self.organization)


@dataclass(frozen=True)
class Button:
    button_id: str
    button_text: str


#: What `POST /api/messages/media` sends; `voice` is an audio sent as a voice note (push-to-talk).
MEDIA_SEND_TYPES = ("image", "video", "audio", "voice", "document", "sticker")
#: What `POST /api/chats/presence` sets: the first two for the account, the others in one chat.
PRESENCES = ("composing", "recording", "paused", "available", "unavailable")


@dataclass(frozen=True)
class MediaPayload:
    """A media message to send: the bytes (already fetched or decoded by the services) and how to show
    them."""

    type: str  # one of MEDIA_SEND_TYPES
    data: bytes
    mime_type: str
    file_name: str = ""
    caption: str = ""
    #: JIDs the caption mentions (messaging.services.mentions).
    mentions: tuple[str, ...] = ()


@dataclass(frozen=True)
class SentTemplate:
    """The approved template a text went out as (official channels, outside the 24-hour window)."""

    name: str
    language: str
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class SentMessage:
    message_id: str
    chat: str
    timestamp: datetime
    status: str = "sent"
    #: Set when the channel sent a text as a template: the history records it as that template.
    template: SentTemplate | None = None


@dataclass(frozen=True)
class ContactStatus:
    number: str
    jid: str
    exists: bool


@dataclass(frozen=True)
class Participant:
    jid: str
    admin: bool = False


@dataclass(frozen=True)
class GroupInfo:
    jid: str
    subject: str
    subject_time: int
    creation: int
    owner: str
    participants: tuple[Participant, ...] = field(default_factory=tuple)
    description: str = ""
    announce: bool = False  # only admins send messages
    locked: bool = False  # only admins edit the group's info

    @property
    def size(self) -> int:
        return len(self.participants)


@dataclass(frozen=True)
class ParticipantResult:
    jid: str
    # promoted, demoted, added, removed, not_a_participant, already_a_participant, not_on_whatsapp,
    # not_allowed
    status: str


@dataclass(frozen=True)
class GroupInvite:
    code: str
    url: str


@dataclass(frozen=True)
class SessionBehaviour:
    """A session's settings as the engines apply them (`GET/PUT /api/sessions/{id}/settings`)."""

    reject_calls: bool = False
    reject_call_message: str = ""
    ignore_groups: bool = False
    read_messages: bool = False
    always_online: bool = False
    sync_full_history: bool = False
