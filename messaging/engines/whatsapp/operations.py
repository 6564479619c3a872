"""The operations of WhatsAppDriver (a mixin, kept apart so each module stays small): each takes the
session's connected client (`_client`, EngineNotConnected otherwise) and runs the `outbound` mapping
under `library_errors`, so library failures leave as engine exceptions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from messaging.engines.base import (
    ContactStatus,
    GroupInfo,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingDelete,
    OutgoingEdit,
    OutgoingForward,
    OutgoingList,
    OutgoingLocation,
    OutgoingMedia,
    OutgoingPoll,
    OutgoingReaction,
    OutgoingText,
    OutgoingTextPreview,
    ParticipantResult,
    Sent,
)
from messaging.engines.whatsapp import lids, lists, outbound, polls
from messaging.engines.whatsapp.errors import library_errors


class WhatsAppOperations:
    _client: Callable[[str], Any]
    presence_allowed: Callable[[str, str], bool]

    def _call(self, session_id: str, operation: Callable[..., Any], *args: Any, kind: str = "message") -> Any:
        client = self._client(session_id)
        with library_errors(kind=kind):
            return operation(client, *args)

    def send_text(self, session_id: str, message: OutgoingText) -> Sent:
        m = message
        return self._call(session_id, outbound.send_text, m.to, m.text, m.quoted, tuple(m.mentions))

    def send_reaction(self, session_id: str, message: OutgoingReaction) -> Sent:
        m = message
        return self._call(
            session_id, outbound.send_reaction, m.to, m.message_id, m.from_me, m.sender, m.emoji
        )

    def send_contact(self, session_id: str, message: OutgoingContact) -> Sent:
        return self._call(session_id, outbound.send_contact, message.to, message.card)

    def send_contacts(self, session_id: str, message: OutgoingContacts) -> Sent:
        return self._call(
            session_id, outbound.send_contacts, message.to, message.display_name, list(message.cards)
        )

    def send_location(self, session_id: str, message: OutgoingLocation) -> Sent:
        m = message
        return self._call(
            session_id, outbound.send_location, m.to, m.latitude, m.longitude, m.name, m.address, m.quoted
        )

    def send_buttons(self, session_id: str, message: OutgoingButtons) -> Sent:
        client = self._client(session_id)
        with library_errors():
            return outbound.send_buttons(
                client,
                message.to,
                message.text,
                list(message.buttons),
                message.footer,
                as_text=settings.WHATSAPP_BUTTONS_AS_TEXT,
            )

    def send_delete(self, session_id: str, message: OutgoingDelete) -> Sent:
        m = message
        return self._call(session_id, outbound.delete_message, m.to, m.message_id, m.from_me, m.sender)

    def send_media(self, session_id: str, message: OutgoingMedia) -> Sent:
        m = message
        return self._call(session_id, outbound.send_media, m.to, m.media, m.quoted, tuple(m.mentions))

    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        self._call(session_id, outbound.mark_read, chat, message_ids, sender)

    def send_presence(self, session_id: str, chat: str, presence: str) -> None:
        if self.presence_allowed(session_id, presence):  # not `unavailable` while always online
            self._call(session_id, outbound.send_presence, chat, presence)

    def check_contacts(self, session_id: str, numbers: list[str]) -> list[ContactStatus]:
        return self._call(session_id, outbound.check_contacts, numbers)

    def set_profile_picture(self, session_id: str, image: bytes, content_type: str, target: str = "") -> None:
        self._call(session_id, outbound.set_profile_picture, image, target, kind="group")

    def set_profile_status(self, session_id: str, status: str) -> None:
        self._call(session_id, lambda client, text: client.set_status_message(text), status)

    def set_profile_name(self, session_id: str, name: str) -> None:
        self._call(session_id, lambda client, text: client.set_profile_name(text), name)

    def group_create(self, session_id: str, subject: str, participants: list[str]) -> GroupInfo:
        return self._call(session_id, outbound.group_create, subject, participants, kind="group")

    def group_list(self, session_id: str) -> list[GroupInfo]:
        return self._call(session_id, outbound.group_list, kind="group")

    def group_leave(self, session_id: str, group_jid: str) -> None:
        self._call(
            session_id, lambda client, jid: client.leave_group(outbound.to_jid(jid)), group_jid, kind="group"
        )

    def group_promote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._call(session_id, outbound.group_change, group_jid, participants, True, kind="group")

    def group_demote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._call(session_id, outbound.group_change, group_jid, participants, False, kind="group")

    def send_poll(self, session_id: str, message: OutgoingPoll) -> Sent:
        m, options = message, list(message.options)
        return self._call(
            session_id,
            polls.send_poll,
            m.to,
            m.name,
            options,
            m.selectable_count,
            m.quoted,
            tuple(m.mentions),
        )

    def send_edit(self, session_id: str, message: OutgoingEdit) -> Sent:
        return self._call(session_id, polls.edit_message, message.to, message.message_id, message.text)

    def send_list(self, session_id: str, message: OutgoingList) -> Sent:
        return self._call(session_id, lists.send_list, message.to, message.message)

    def send_forward(self, session_id: str, message: OutgoingForward) -> Sent:
        return self._call(session_id, lists.send_forward, message.to, message.content)

    def send_text_preview(self, session_id: str, message: OutgoingTextPreview) -> Sent:
        m = message
        mentions = tuple(m.mentions)
        return self._call(session_id, lists.send_text_preview, m.to, m.text, m.preview, m.quoted, mentions)

    def lid_lookup(self, session_id: str, jid: str) -> dict[str, str] | None:
        return self._call(session_id, lids.store_pair, jid)
