"""GraphChannelEngine: the engine contract over Meta's Graph API, for official sessions.

Official sessions are stored with this engine's path (messaging.channels.ENGINE_PATH), so the messaging
services call it like any engine. Pairing does not exist (the session is connected once its credentials
are verified); what a channel cannot do raises EngineUnsupported (400 OPERATION_NOT_SUPPORTED).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from messaging.channels import CHANNEL_NAMES, WHATSAPP_CLOUD
from messaging.channels.chat_actions import GraphChatActions
from messaging.channels.group_admin import GraphGroupAdmin
from messaging.channels.lists import GraphLists
from messaging.channels.models import ChannelAccount
from messaging.channels.outbound import account_of, post, recipient, send, unsupported
from messaging.channels.window import window_template
from messaging.engines.base import (
    ConnectResult,
    ContactCard,
    ContactStatus,
    Engine,
    GroupInfo,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingDelete,
    OutgoingEdit,
    OutgoingLocation,
    OutgoingMediaLink,
    OutgoingPoll,
    OutgoingReaction,
    OutgoingText,
    PairingCode,
    ParticipantResult,
    QrCode,
    Sent,
    SentTemplate,
)
from messaging.engines.events import DisconnectedEvent
from messaging.models import Session

logger = logging.getLogger(__name__)

MEDIA_KINDS = ("image", "video", "audio", "document", "sticker")


def _cloud_only(account: ChannelAccount, operation: str) -> None:
    if account.session.provider != WHATSAPP_CLOUD:
        raise unsupported(account.session.provider, operation)


class GraphChannelEngine(GraphGroupAdmin, GraphLists, GraphChatActions, Engine):
    label = "graph"
    reports_own_reads = False  # the Graph API sends no receipt of the session's own reading
    media_by_link = True  # Meta fetches the URL itself
    unsupported_settings = ("reject_calls", "always_online", "sync_full_history")
    mentions = False  # none of the three channels' send APIs mentions people

    # Connection ---------------------------------------------------------------------------------

    def _no_pairing(self, session_id: str) -> Exception:
        return unsupported(account_of(session_id).session.provider, "be paired by QR code or phone code")

    def connect(self, session_id: str) -> ConnectResult:
        raise self._no_pairing(session_id)

    def current_qr(self, session_id: str) -> QrCode:
        raise self._no_pairing(session_id)

    def pairing_code(self, session_id: str, phone: str) -> PairingCode:
        raise self._no_pairing(session_id)

    def logout(self, session_id: str) -> None:
        """The stored credentials are deleted: the session must be created again to connect."""
        ChannelAccount.objects.filter(session_id=session_id).update(credentials=None)
        self.report(session_id, DisconnectedEvent(reason="logout"))

    def forget(self, session_id: str) -> None:
        """Nothing is kept outside the session's own rows (deleted with it)."""

    @transaction.atomic
    def credentials_revoked(self, session_id: str, reason: str) -> None:
        """The channel refused the session's token: the reason kept on the channel account, and the
        session disconnected (a `disconnected` event) when it was connected."""
        updated = ChannelAccount.objects.filter(session_id=session_id).update(disconnect_reason=reason[:300])
        if not updated:
            return
        logger.warning("Official session %s disconnected by its channel: %s", session_id, reason)
        if Session.objects.filter(pk=session_id, status=Session.Status.CONNECTED).exists():
            now = int(timezone.now().timestamp())
            self.report(session_id, DisconnectedEvent(reason=reason, timestamp=now))

    def channel_name(self, provider: str) -> str:
        return CHANNEL_NAMES.get(provider, provider)

    # Messages -----------------------------------------------------------------------------------

    def send_text(self, session_id: str, message: OutgoingText) -> Sent:
        """Text within the 24-hour window; outside it, as the approved template it matches (or nothing
        is sent: EngineOutsideWindow, `unsent`). See window.py."""
        account, to, text = account_of(session_id), message.to, message.text
        if message.mentions:
            raise unsupported(account.session.provider, "mention people")
        match = window_template(session_id, to, text)
        if match is not None:
            template = match.template
            sent = self._template(account, to, template.name, template.language, match.parameters)
            used = SentTemplate(template.name, template.language, tuple(match.parameters))
            return dataclasses.replace(sent, template=used)
        context = message.quoted.message_id if message.quoted else ""
        if account.session.provider == WHATSAPP_CLOUD:
            return send(account, to, "text", {"body": text, "preview_url": False}, context_id=context)
        return send(account, to, "text", {"text": text}, context_id=context)

    def send_reaction(self, session_id: str, message: OutgoingReaction) -> Sent:
        account, chat = account_of(session_id), message.to
        reacted = {"message_id": message.message_id, "emoji": message.emoji}
        if account.session.provider == WHATSAPP_CLOUD:
            return send(account, chat, "reaction", reacted)
        body: dict[str, Any] = {
            "recipient": {"id": recipient(chat)},
            "sender_action": "react" if message.emoji else "unreact",
            "payload": {
                "message_id": message.message_id,
                **({"reaction": message.emoji} if message.emoji else {}),
            },
        }
        post(account, body)
        return Sent(message_id="", chat=chat, timestamp=timezone.now())

    def send_contact(self, session_id: str, message: OutgoingContact) -> Sent:
        card = message.card
        return self._contacts(session_id, message.to, [card])

    def send_contacts(self, session_id: str, message: OutgoingContacts) -> Sent:
        return self._contacts(session_id, message.to, list(message.cards))

    @staticmethod
    def _contacts(session_id: str, to: str, cards: list[ContactCard]) -> Sent:
        account = account_of(session_id)
        _cloud_only(account, "send contact cards")
        contacts = [
            {
                "name": {"formatted_name": card.display_name, "first_name": card.display_name},
                "phones": [{"phone": f"+{card.phone_number}", "type": "CELL", "wa_id": card.phone_number}],
                **({"org": {"company": card.organization}} if card.organization else {}),
            }
            for card in cards
        ]
        return send(account, to, "contacts", contacts)

    def send_location(self, session_id: str, message: OutgoingLocation) -> Sent:
        account = account_of(session_id)
        _cloud_only(account, "send locations")
        m = message
        place = {"latitude": m.latitude, "longitude": m.longitude, "name": m.name, "address": m.address}
        return send(account, m.to, "location", place, context_id=m.quoted.message_id if m.quoted else "")

    def send_buttons(self, session_id: str, message: OutgoingButtons) -> Sent:
        account, to, buttons = account_of(session_id), message.to, message.buttons
        if account.session.provider == WHATSAPP_CLOUD:
            interactive: dict[str, Any] = {
                "type": "button",
                "body": {"text": message.text},
                "action": {
                    "buttons": [
                        {"type": "reply", "reply": {"id": b.button_id, "title": b.button_text[:20]}}
                        for b in buttons
                    ]
                },
            }
            if message.footer:
                interactive["footer"] = {"text": message.footer}
            return send(account, to, "interactive", interactive)
        # Messenger and Instagram: quick replies, answered as postback-like `quick_reply` payloads.
        replies = [
            {"content_type": "text", "title": b.button_text[:20], "payload": b.button_id} for b in buttons
        ]
        return send(account, to, "text", {"text": message.text, "quick_replies": replies})

    def send_media_link(self, session_id: str, message: OutgoingMediaLink) -> Sent:
        """Media by URL: Meta fetches `link` itself. `voice`: an OGG/Opus voice note (converted by the
        services), sent as `audio` with `voice: true` on the Cloud API, as audio on the page channels."""
        account, to, kind = account_of(session_id), message.to, message.media_kind
        if kind == "voice" and account.session.provider == WHATSAPP_CLOUD:
            return send(account, to, "audio", {"link": message.link, "voice": True})
        kind = "audio" if kind == "voice" else kind
        if account.session.provider == WHATSAPP_CLOUD:
            media: dict[str, Any] = {"link": message.link}
            if message.caption and kind in ("image", "video", "document"):
                media["caption"] = message.caption
            if message.file_name and kind == "document":
                media["filename"] = message.file_name
            return send(account, to, kind, media)
        page_kind = {"document": "file", "sticker": "image"}.get(kind, kind)
        return send(
            account,
            to,
            kind,
            {"attachment": {"type": page_kind, "payload": {"url": message.link, "is_reusable": True}}},
        )

    def send_template(
        self, session_id: str, to: str, name: str, language: str, parameters: list[str]
    ) -> Sent:
        return self._template(account_of(session_id), to, name, language, parameters)

    @staticmethod
    def _template(account: ChannelAccount, to: str, name: str, language: str, parameters: list[str]) -> Sent:
        _cloud_only(account, "send templates")
        template: dict[str, Any] = {"name": name, "language": {"code": language}}
        if parameters:
            template["components"] = [
                {"type": "body", "parameters": [{"type": "text", "text": p} for p in parameters]}
            ]
        return send(account, to, "template", template)

    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        """Each message (and all before it) read, showing the typing indicator as a person reading would:
        the channels take one message per call and have no groups (`sender` is empty)."""
        for message_id in message_ids:
            self.mark_read_typing(session_id, chat, message_id, typing=True)

    def mark_read_typing(self, session_id: str, chat: str, message_id: str, typing: bool = True) -> None:
        """Mark a received message read, showing the typing indicator (it clears itself after ~25 s)."""
        account = account_of(session_id)
        if account.session.provider == WHATSAPP_CLOUD:
            body: dict[str, Any] = {
                "messaging_product": "whatsapp",
                "status": "read",
                "message_id": message_id,
            }
            if typing:
                body["typing_indicator"] = {"type": "text"}
            post(account, body)
            return
        post(account, {"recipient": {"id": recipient(chat)}, "sender_action": "mark_seen"})
        if typing:
            post(account, {"recipient": {"id": recipient(chat)}, "sender_action": "typing_on"})

    def send_delete(self, session_id: str, message: OutgoingDelete) -> Sent:
        raise unsupported(account_of(session_id).session.provider, "delete messages for everyone")

    # Contacts and profile -------------------------------------------------------------------------

    def check_contacts(self, session_id: str, numbers: list[str]) -> list[ContactStatus]:
        raise unsupported(account_of(session_id).session.provider, "check whether numbers have an account")

    def set_profile_picture(self, session_id: str, image: bytes, content_type: str, target: str = "") -> None:
        raise unsupported(account_of(session_id).session.provider, "change the profile picture")

    def set_profile_status(self, session_id: str, status: str) -> None:
        raise unsupported(account_of(session_id).session.provider, "change the profile status")

    def set_profile_name(self, session_id: str, name: str) -> None:
        raise unsupported(account_of(session_id).session.provider, "change the profile name")

    # Groups ---------------------------------------------------------------------------------------

    # Polls and edits: none of the three channels' send APIs has them.

    def send_poll(self, session_id: str, message: OutgoingPoll) -> Sent:
        raise unsupported(account_of(session_id).session.provider, "send polls")

    def send_edit(self, session_id: str, message: OutgoingEdit) -> Sent:
        raise unsupported(account_of(session_id).session.provider, "edit sent messages")

    def _no_groups(self, session_id: str) -> Exception:
        return unsupported(account_of(session_id).session.provider, "take part in groups")

    def group_create(self, session_id: str, subject: str, participants: list[str]) -> GroupInfo:
        raise self._no_groups(session_id)

    def group_list(self, session_id: str) -> list[GroupInfo]:
        raise self._no_groups(session_id)

    def group_leave(self, session_id: str, group_jid: str) -> None:
        raise self._no_groups(session_id)

    def group_promote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        raise self._no_groups(session_id)

    def group_demote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        raise self._no_groups(session_id)
