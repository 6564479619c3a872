"""The contract every messaging engine honours.

Engines take and return plain data (ids, strings, numbers and the frozen dataclasses of
messaging.values and messaging.engines.outgoing), never ORM objects or requests, so the same contract can
travel over a command bus to engine processes. A send is one value (`Outgoing`) and its answer (`Sent`)
carries the events the send produced, which the calling service records: a call never reports back into
the services while it runs (docs/decisions/0028).
Things that happen on their own (a new QR code, a pairing, an inbound message, an ack, a group change)
are reported as typed events (messaging.engines.events) through one callback, ``on_event(session_id,
event)``; the messaging services record them and hand them to the event sink named in settings
(`MESSAGING_EVENT_SINK`, by default the webhooks outbox). An engine never imports ``webhooks`` and never
raises Ponte's HTTP errors: it raises the exceptions below, which the services translate.

Recipients given to an engine are already validated JIDs (`messaging.addressing`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from messaging.engines.chat_contract import ChatActions
from messaging.engines.commands import (  # noqa: F401 (re-exported)
    GROUP_ADMIN_COMMANDS,
    LID_COMMANDS,
    NEWSLETTER_COMMANDS,
    STATUS_COMMANDS,
)
from messaging.engines.errors import (  # noqa: F401 (engines and services import them from here)
    EngineCredentialsRevoked,
    EngineError,
    EngineNotAllowed,
    EngineNotConnected,
    EngineNotFound,
    EngineOutsideWindow,
    EngineRateLimited,
    EngineRefused,
    EngineUnavailableError,
    EngineUnsupported,
)
from messaging.engines.events import EngineEvent
from messaging.engines.outgoing import (  # noqa: F401 (engines import them from here)
    OUTGOING_KINDS,
    Injected,
    Outgoing,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingDelete,
    OutgoingEdit,
    OutgoingForward,
    OutgoingList,
    OutgoingLocation,
    OutgoingMedia,
    OutgoingMediaLink,
    OutgoingPoll,
    OutgoingReaction,
    OutgoingText,
    OutgoingTextPreview,
    Sent,
)

# The values engines take and return (re-exported: engines import them from here).
from messaging.values import (  # noqa: F401
    MEDIA_SEND_TYPES,
    PRESENCES,
    Button,
    ConnectResult,
    ContactCard,
    ContactStatus,
    ForwardCard,
    ForwardContent,
    GroupInfo,
    GroupInvite,
    LinkPreview,
    ListMessage,
    ListRow,
    ListSection,
    MediaPayload,
    NewsletterInfo,
    PairingCode,
    Participant,
    ParticipantResult,
    QrCode,
    Quoted,
    SentTemplate,
    SessionBehaviour,
    StatusPosted,
)

EventCallback = Callable[[str, EngineEvent], None]


# --- The contract --------------------------------------------------------------------------------


class Engine(ChatActions, ABC):
    """One method per operation. `session_id` is the session's UUID as a string."""

    #: Short label shown in the admin and the API (`engine` field).
    label: str = "engine"

    def __init__(self, on_event: EventCallback | None = None) -> None:
        self._on_event = on_event

    #: Whether the sandbox-only actions (scan, inbound injection) apply to this engine's sessions.
    sandbox: bool = False
    #: Whether a call is work on this process's own database connection and nothing else (the sandbox):
    #: a send then runs it in the transaction that records it. Otherwise the call is a round trip over a
    #: network (an engine process, Meta's Graph API), made outside any transaction, so no row lock is
    #: held while it lasts (messaging.services.messages.message_send).
    local: bool = False
    #: Whether its messages can mention people (the `mentions` of OutgoingText, OutgoingMedia and
    #: OutgoingPoll); without, such a send answers 400 OPERATION_NOT_SUPPORTED.
    mentions: bool = True

    def report(self, session_id: str, event: EngineEvent) -> None:
        """Tell Ponte that something happened on the session (connected, qr, message, ...)."""
        if self._on_event is not None:
            self._on_event(session_id, event)

    # Connection ---------------------------------------------------------------------------------

    @abstractmethod
    def connect(self, session_id: str) -> ConnectResult:
        """Start pairing (reporting `qr`), or do nothing when already paired."""

    @abstractmethod
    def current_qr(self, session_id: str) -> QrCode:
        """The QR code to scan now, replacing an expired one (reporting `qr`).

        Raises EngineNotAllowed when the session is not waiting for a scan.
        """

    @abstractmethod
    def pairing_code(self, session_id: str, phone: str) -> PairingCode:
        """A code to type on the phone `phone` instead of scanning (session must be waiting)."""

    @abstractmethod
    def logout(self, session_id: str) -> None:
        """Unpair and delete the stored credentials (reporting `disconnected`)."""

    @abstractmethod
    def forget(self, session_id: str) -> None:
        """The session is deleted: drop everything the engine keeps for it."""

    # Messages -----------------------------------------------------------------------------------

    def send(self, session_id: str, message: Outgoing) -> Sent:
        """Send one message (messaging.engines.outgoing): its id, chat and time, and the events the send
        produced (the services record both). Each kind goes to the engine's `send_<kind>` method; an
        engine without one cannot send that kind (400 OPERATION_NOT_SUPPORTED)."""
        handler = getattr(self, f"send_{message.kind}", None)
        if handler is None:
            raise EngineUnsupported(
                f"The {self.label} engine cannot send {message.kind.replace('_', ' ')} messages."
            )
        return handler(session_id, message)

    @abstractmethod
    def send_text(self, session_id: str, message: OutgoingText) -> Sent: ...

    @abstractmethod
    def send_reaction(self, session_id: str, message: OutgoingReaction) -> Sent:
        """React to a message; an empty `emoji` removes the reaction."""

    @abstractmethod
    def send_contact(self, session_id: str, message: OutgoingContact) -> Sent: ...

    @abstractmethod
    def send_contacts(self, session_id: str, message: OutgoingContacts) -> Sent: ...

    @abstractmethod
    def send_location(self, session_id: str, message: OutgoingLocation) -> Sent: ...

    @abstractmethod
    def send_buttons(self, session_id: str, message: OutgoingButtons) -> Sent: ...

    @abstractmethod
    def send_delete(self, session_id: str, message: OutgoingDelete) -> Sent:
        """Revoke a message for everyone (others' messages only as a group admin)."""

    # Contacts and profile -------------------------------------------------------------------------

    @abstractmethod
    def check_contacts(self, session_id: str, numbers: list[str]) -> list[ContactStatus]: ...

    @abstractmethod
    def set_profile_picture(self, session_id: str, image: bytes, content_type: str, target: str = "") -> None:
        """Set the own picture, or a group's (`target` a group JID; admins only)."""

    @abstractmethod
    def set_profile_status(self, session_id: str, status: str) -> None: ...

    @abstractmethod
    def set_profile_name(self, session_id: str, name: str) -> None: ...

    # Groups ---------------------------------------------------------------------------------------

    @abstractmethod
    def group_create(self, session_id: str, subject: str, participants: list[str]) -> GroupInfo: ...

    @abstractmethod
    def group_list(self, session_id: str) -> list[GroupInfo]: ...

    @abstractmethod
    def group_leave(self, session_id: str, group_jid: str) -> None: ...

    @abstractmethod
    def group_promote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]: ...

    @abstractmethod
    def group_demote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]: ...

    # Media, chats and the connection. Not abstract, so engines written before them (and channels that
    # lack one) still load; each says plainly that it cannot.

    def send_media(self, session_id: str, message: OutgoingMedia) -> Sent:
        raise EngineNotAllowed(f"The {self.label} engine cannot send media.")

    def send_media_link(self, session_id: str, message: OutgoingMediaLink) -> Sent:
        """Media the platform fetches from `link` itself (official channels; others take the bytes).
        `media_kind` is a MEDIA_SEND_TYPES value; `voice` links to an OGG/Opus note Ponte converted."""
        raise EngineUnsupported(f"The {self.label} engine sends media as bytes, not by link.")

    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        """Send read receipts for `message_ids` of `chat` (`sender`: their author, in groups)."""
        raise EngineNotAllowed(f"The {self.label} engine cannot mark messages read.")

    def send_presence(self, session_id: str, chat: str, presence: str) -> None:
        """`available`/`unavailable` for the account; `composing`/`recording`/`paused` in `chat`."""
        raise EngineNotAllowed(f"The {self.label} engine cannot send presence.")

    # What a channel does its own way (official channels: GraphChannelEngine). Not abstract: the
    # defaults are what every other engine does.

    def credentials_revoked(self, session_id: str, reason: str) -> None:
        """The platform refused the session's credentials (the engine raised EngineCredentialsRevoked):
        record the disconnection, reporting `disconnected`. Called by the services after the failed
        request's writes were rolled back, in a transaction of its own. Engines that never raise it
        have nothing to record."""
        return None

    #: Whether the platform reports the session's own reading (a receipt event after `mark_read`); when
    #: not (the Graph API), the services mark the messages read in the history themselves.
    reports_own_reads: bool = True
    #: Whether media is sent by link, fetched by the platform itself (`send_media_link`: the Graph API),
    #: rather than as bytes the services fetch or decode (`send_media`).
    media_by_link: bool = False
    #: The session settings (SessionBehaviour's fields) the channel cannot honour: refused when set.
    unsupported_settings: tuple[str, ...] = ()

    def channel_name(self, provider: str) -> str:
        """The session's channel as people name it, in messages (`whatsapp_cloud` → "WhatsApp Cloud
        API"); every engine but the official channels' plays WhatsApp."""
        return "WhatsApp"

    def restart(self, session_id: str) -> None:
        """Drop the connection and connect again with the stored credentials (no new pairing).

        Raises EngineNotConnected when there are no credentials to reconnect with."""
        raise EngineNotAllowed(f"The {self.label} engine cannot restart sessions.")

    # Polls and edits (not abstract either: engines without them answer 400 OPERATION_NOT_SUPPORTED).

    def send_poll(self, session_id: str, message: OutgoingPoll) -> Sent:
        """Send a poll. Votes are reported as `poll_vote` events naming the options chosen."""
        raise EngineUnsupported(f"The {self.label} engine cannot send polls.")

    def send_edit(self, session_id: str, message: OutgoingEdit) -> Sent:
        """Replace the text of one of the session's own text messages. The services record the
        `message_edited` event when the engine's answer carries none."""
        raise EngineUnsupported(f"The {self.label} engine cannot edit messages.")

    # Lists, forwards and link previews (not abstract: engines without them answer 400
    # OPERATION_NOT_SUPPORTED naming the engine).

    def send_list(self, session_id: str, message: OutgoingList) -> Sent:
        """Send a list message; a customer's choice is reported as a `list_response` message."""
        raise EngineUnsupported(f"The {self.label} engine cannot send list messages.")

    def send_forward(self, session_id: str, message: OutgoingForward) -> Sent:
        """Send a copy of a message of the history, marked forwarded (`forwarded` in its echo)."""
        raise EngineUnsupported(f"The {self.label} engine cannot forward messages.")

    def send_text_preview(self, session_id: str, message: OutgoingTextPreview) -> Sent:
        """Send a text with the link preview `message.preview` (its `url` is a link of the text)."""
        raise EngineUnsupported(f"The {self.label} engine cannot send link previews.")

    # Group administration, contacts' pictures and the session's settings. Not
    # abstract: an engine without them answers 400 OPERATION_NOT_SUPPORTED. Admin-only ones raise
    # EngineNotAllowed when the session is not a group admin; an unknown or revoked invite code raises
    # EngineNotFound(kind="invite").

    def group_participants_add(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        """Add participants: `added`, `already_a_participant`, `not_on_whatsapp`, `not_allowed` each."""
        raise EngineUnsupported(f"The {self.label} engine cannot add group participants.")

    def group_participants_remove(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        """Remove participants: `removed`, `not_a_participant`, `not_allowed` (the owner, oneself) each."""
        raise EngineUnsupported(f"The {self.label} engine cannot remove group participants.")

    def group_set_subject(self, session_id: str, group_jid: str, subject: str) -> GroupInfo:
        raise EngineUnsupported(f"The {self.label} engine cannot change a group's subject.")

    def group_set_description(self, session_id: str, group_jid: str, description: str) -> GroupInfo:
        raise EngineUnsupported(f"The {self.label} engine cannot change a group's description.")

    def group_set_settings(
        self, session_id: str, group_jid: str, announce: bool | None, locked: bool | None
    ) -> GroupInfo:
        """`announce`: only admins send; `locked`: only admins edit the info (None: unchanged)."""
        raise EngineUnsupported(f"The {self.label} engine cannot change a group's settings.")

    def group_invite(self, session_id: str, group_jid: str, revoke: bool = False) -> GroupInvite:
        """The group's invite code (admins only); `revoke`: replace it, so the old one stops working."""
        raise EngineUnsupported(f"The {self.label} engine cannot give group invite links.")

    def group_join(self, session_id: str, code: str) -> GroupInfo:
        raise EngineUnsupported(f"The {self.label} engine cannot join groups by invite.")

    def contact_picture(self, session_id: str, jid: str) -> str | None:
        """The URL of a contact's (or group's) picture; None when hidden or absent."""
        raise EngineUnsupported(f"The {self.label} engine cannot read profile pictures.")

    def settings_apply(self, session_id: str, behaviour: SessionBehaviour) -> None:
        """The session's settings changed: apply what takes effect at once (`alwaysOnline`). The rest is
        read where it applies (messaging.engines.behaviour)."""
        return None  # nothing to do for an engine without a lasting connection

    # Linked ids (not abstract: channels without them answer 400 OPERATION_NOT_SUPPORTED).

    def lid_lookup(self, session_id: str, jid: str) -> dict[str, str] | None:
        """The other id of `jid` (a `…@lid` or a phone JID) as the platform's own store knows it:
        `{"lid": "…@lid", "pn": "…@s.whatsapp.net"}`, or None when it does not know."""
        raise EngineUnsupported(f"The {self.label} engine has no linked ids (@lid).")

    # Sandbox only (the phone and WhatsApp played by the engine; `sandbox` engines override) ------------

    def scan(self, session_id: str, *, phone: str = "", pairing_code: str = "") -> str:
        """The phone scans the QR code (or types the pairing code); returns the session's JID."""
        raise EngineNotFound("Not a sandbox session.", kind="session")

    def inject(self, session_id: str, event: str, data: dict[str, Any]) -> Injected:
        """Something arrives from "WhatsApp"; returns the event's data and the events to record."""
        raise EngineNotFound("Not a sandbox session.", kind="session")

    # Status (stories). Not abstract: an engine without them answers 400 OPERATION_NOT_SUPPORTED
    # (messaging.services.status). The services record the session's own statuses from the answers.

    def status_text(self, session_id: str, text: str, background_color: str, font: int) -> StatusPosted:
        """Post a text status (`background_color` `#RRGGBB`, `font` 0 to 5) to the session's contacts."""
        raise EngineUnsupported(f"The {self.label} engine cannot post statuses.")

    def status_media(self, session_id: str, media: MediaPayload) -> StatusPosted:
        """Post an image or video status (`media.type`), with `media.caption`."""
        raise EngineUnsupported(f"The {self.label} engine cannot post statuses.")

    def status_delete(self, session_id: str, status_id: str) -> None:
        """Delete one of the session's own statuses for everyone who could see it."""
        raise EngineUnsupported(f"The {self.label} engine cannot delete statuses.")

    # Channels (newsletters). Not abstract: an engine without them answers 400 OPERATION_NOT_SUPPORTED.
    # Messages are sent to a channel's JID like to any chat (messaging.services.newsletters checks that
    # the session owns it); a channel's posts arrive as `message` events of that chat.

    def newsletter_list(self, session_id: str) -> list[NewsletterInfo]:
        """The channels the session owns or follows."""
        raise EngineUnsupported(f"The {self.label} engine has no channels.")

    def newsletter_create(self, session_id: str, name: str, description: str) -> NewsletterInfo:
        raise EngineUnsupported(f"The {self.label} engine cannot create channels.")

    def newsletter_follow(self, session_id: str, jid: str = "", invite: str = "") -> NewsletterInfo:
        """Follow a channel by JID or invite code; EngineNotFound(kind="channel") when there is none."""
        raise EngineUnsupported(f"The {self.label} engine cannot follow channels.")

    def newsletter_unfollow(self, session_id: str, jid: str) -> None:
        raise EngineUnsupported(f"The {self.label} engine cannot unfollow channels.")
