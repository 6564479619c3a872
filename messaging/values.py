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
    #: Voice notes (already OGG/Opus, mono, 48 kHz: messaging.services.audio): the length in whole
    #: seconds and 64 loudness values from 0 to 100, as WhatsApp's clients draw the note.
    seconds: int = 0
    waveform: tuple[int, ...] = ()


@dataclass(frozen=True)
class SentTemplate:
    """The approved template a text went out as (official channels, outside the 24-hour window)."""

    name: str
    language: str
    parameters: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class ListRow:
    """One choice of a list message: `row_id` comes back in the customer's `list_response`."""

    row_id: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class ListSection:
    title: str
    rows: tuple[ListRow, ...] = ()


@dataclass(frozen=True)
class ListMessage:
    """A list message (`POST /api/messages/list`): the text, the button that opens the list, its
    sections of rows (1 to 10 sections, at most 10 rows in all, row ids unique: checked by the API)."""

    text: str
    button_text: str
    sections: tuple[ListSection, ...] = ()
    title: str = ""
    footer: str = ""


@dataclass(frozen=True)
class LinkPreview:
    """The preview card shown above a text with a link: given by the caller, or read from the page's
    Open Graph tags (messaging.services.link_preview). `thumbnail`: JPEG or PNG bytes, if any."""

    url: str
    title: str
    description: str = ""
    thumbnail: bytes = b""


@dataclass(frozen=True)
class ForwardCard:
    """A contact card of a forwarded message, as the history keeps it (the vCard is what travels)."""

    display_name: str
    vcard: str


@dataclass(frozen=True)
class ForwardContent:
    """A message of the history sent again, marked forwarded (`POST /api/messages/forward`). `type` is
    `text`, `media` (with `media`), `location`, `contacts` or `poll`; the fields of that kind are set."""

    type: str
    text: str = ""
    media: MediaPayload | None = None
    latitude: float = 0.0
    longitude: float = 0.0
    name: str = ""  # a location's name, or a poll's question
    address: str = ""
    display_name: str = ""
    cards: tuple[ForwardCard, ...] = ()
    options: tuple[str, ...] = ()
    selectable_count: int = 1


#: A status event's kinds (`revoked`: its author deleted it).
STATUS_TYPES = ("text", "image", "video", "revoked")
#: The fonts of a text status (`font` 0 to 5 of `POST /api/status/text`), in WhatsApp's order.
STATUS_FONTS = 6


@dataclass(frozen=True)
class StatusPosted:
    """A status the session posted: its id and when WhatsApp took it (stored media: the echo's link)."""

    status_id: str
    timestamp: datetime
    media_url: str = ""


#: Where WhatsApp's channels (newsletters) live: `<digits>@newsletter`.
NEWSLETTER_SUFFIX = "newsletter"


@dataclass(frozen=True)
class NewsletterInfo:
    """A channel (newsletter): its JID, name, description, invite code and the session's `role` in it
    (`owner` or `follower`)."""

    jid: str
    name: str
    description: str = ""
    invite: str = ""
    role: str = "follower"
