"""SandboxEngine: the default engine, deterministic and in-process, with its state in the database.

It plays both WhatsApp's servers and the user's phone, so integrations and tests can drive every flow
without a phone: connect gives a real QR code (a whatsmeow-style ``2@ref,noise,identity,adv`` string
that any QR reader decodes) replaced every ``MESSAGING_QR_TTL_SECONDS``; a pairing code by phone number;
``scan`` pairs (the phone scanning the code or typing the pairing code); ``inject`` delivers inbound
events (messages and media, acks, presence, calls, group changes, chat archiving, disconnections).
Whatever the session sends (messages, media, reactions, deletions) is echoed as a ``fromMe``
``message`` event, as real gateways do.

Deterministic: codes and ids derive from the session id and a counter, never from randomness, so the
same steps give the same values. Rules of the sandbox's "WhatsApp":
numbers ending in ``0000`` are not on WhatsApp; the session's own phone, unless given at scan time,
is derived from its id.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from messaging.addressing import is_group, user_suffix
from messaging.engines.base import (
    ContactCard,
    ContactStatus,
    Engine,
    EngineNotAllowed,
    EngineNotConnected,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingDelete,
    OutgoingLocation,
    OutgoingReaction,
    OutgoingText,
    Quoted,
    Sent,
)
from messaging.engines.events import (
    EngineEvent,
    event_from_data,
)
from messaging.engines.sandbox_behaviour import SandboxBehaviour
from messaging.engines.sandbox_chat_actions import SandboxChatActions
from messaging.engines.sandbox_group_admin import SandboxGroupAdmin
from messaging.engines.sandbox_groups import SandboxGroups, sandbox_digest
from messaging.engines.sandbox_inbound import SandboxInbound
from messaging.engines.sandbox_lids import SandboxLids
from messaging.engines.sandbox_lists import SandboxLists
from messaging.engines.sandbox_media import SandboxMedia
from messaging.engines.sandbox_newsletters import SandboxNewsletters
from messaging.engines.sandbox_pairing import SandboxPairing
from messaging.engines.sandbox_polls import SandboxPolls
from messaging.engines.sandbox_status import SandboxStatus
from messaging.models import SandboxDevice

# What _serial_next's UPDATE ... RETURNING reads of the device, in the model's column order.
_SERIAL_COLUMNS = ("id", "session_id", "jid", "push_name", "message_serial")


def _mentioned(mentions: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """The echo's `mentions`, when the message mentions anyone."""
    return {"mentions": list(mentions)} if mentions else {}


class SandboxEngine(
    SandboxPairing,
    SandboxInbound,
    SandboxBehaviour,
    SandboxMedia,
    SandboxPolls,
    SandboxGroupAdmin,
    SandboxGroups,
    SandboxLists,
    SandboxChatActions,
    SandboxStatus,
    SandboxNewsletters,
    SandboxLids,
    Engine,
):
    label = "sandbox"
    sandbox = True
    local = True  # its "WhatsApp" is rows of this database

    # --- state helpers ----------------------------------------------------------------------------

    def _device(self, session_id: str) -> SandboxDevice:
        device, _ = SandboxDevice.objects.select_for_update().get_or_create(session_id=session_id)
        return device

    def _paired(self, session_id: str) -> SandboxDevice:
        device = self._device(session_id)
        if not device.credentials:
            raise EngineNotConnected("The sandbox session is not paired.")
        return device

    @staticmethod
    def _serial_next(session_id: str) -> SandboxDevice:
        """The paired device, locked, its message counter moved on for a new message id: one UPDATE ...
        RETURNING (both databases), where a locked read and a save of the counter took two round trips.
        Only the columns a message needs are loaded (the rest, credentials included, are deferred). Read
        with a cursor and `from_db`, not `raw()`, whose column mapping cost a fifth of a send's ORM time."""
        table = connection.ops.quote_name(SandboxDevice._meta.db_table)
        field = SandboxDevice._meta.get_field("session_id")
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET message_serial = message_serial + 1 "  # noqa: S608 (the model's table name)
                "WHERE session_id = %s AND credentials IS NOT NULL "
                "RETURNING id, session_id, jid, push_name, message_serial",
                [field.get_db_prep_value(session_id, connection)],
            )
            row = cursor.fetchone()
        if row is None:
            raise EngineNotConnected("The sandbox session is not paired.")
        pk, session, jid, push_name, serial = row
        # The columns in the model's order (from_db defers the others); SQLite hands the UUID back as text.
        values = [pk, field.to_python(session), jid, push_name, serial]
        return SandboxDevice.from_db(connection.alias, _SERIAL_COLUMNS, values)

    @staticmethod
    def _message_id(device: SandboxDevice) -> str:
        """The id of the message numbered by the device's counter (_serial_next)."""
        return "3EB0" + sandbox_digest("message", device.session_id, device.message_serial).hex()[:16].upper()

    def _chat_ok(self, device: SandboxDevice, chat: str) -> None:
        if is_group(chat):
            self._own_group(device, chat)

    def _sending(self, session_id: str, chat: str) -> SandboxDevice:
        """The paired device about to send a new message to `chat` (a group only if the session is in it)."""
        device = self._serial_next(session_id)
        if is_group(chat):
            self._announce_ok(device, chat)  # in the group, and an admin if only admins send
        return device

    def _sent(self, device: SandboxDevice, chat: str, type_: str, **fields: Any) -> Sent:
        """Send: the device's new message id, and the message echoed as a `fromMe` `message` event, the
        way real gateways report the account's own messages (same data shape as an inbound message),
        returned with the answer for the services to record."""
        message_id, at = self._message_id(device), timezone.now()
        echo = self._echo(device, message_id, chat, type_, at, fields)
        return Sent(message_id=message_id, chat=chat, timestamp=at, events=(echo,))

    @staticmethod
    def _echo(
        device: SandboxDevice,
        message_id: str,
        chat: str,
        type_: str,
        at: datetime,
        fields: dict[str, Any],
    ) -> EngineEvent:
        data = {
            "id": message_id,
            "chat": chat,
            "sender": device.jid,
            "pushName": device.push_name,
            "timestamp": int(at.timestamp()),
            "fromMe": True,
            "type": type_,
            **fields,
        }
        return event_from_data("message", data)

    @staticmethod
    def _quoted(quoted: Quoted | None) -> dict[str, Any]:
        if quoted is None:
            return {}
        return {"quoted": {"messageId": quoted.message_id, "participant": quoted.participant}}

    @staticmethod
    def _card(card: ContactCard) -> dict[str, Any]:
        shaped = {"displayName": card.display_name, "phoneNumber": card.phone_number}
        if card.organization:
            shaped["organization"] = card.organization
        return shaped

    # --- messages ---------------------------------------------------------------------------------

    @transaction.atomic(savepoint=False)
    def send_text(self, session_id: str, message: OutgoingText) -> Sent:
        to, quoted = message.to, self._quoted(message.quoted)
        device = self._sending(session_id, to)
        return self._sent(device, to, "text", text=message.text, **quoted, **_mentioned(message.mentions))

    @transaction.atomic(savepoint=False)
    def send_reaction(self, session_id: str, message: OutgoingReaction) -> Sent:
        device = self._sending(session_id, message.to)
        # A reaction is a message of its own (own id); "" removes the session's reaction.
        reaction = {"messageId": message.message_id, "emoji": message.emoji}
        return self._sent(device, message.to, "reaction", reaction=reaction)

    @transaction.atomic(savepoint=False)
    def send_contact(self, session_id: str, message: OutgoingContact) -> Sent:
        to = message.to
        return self._sent(self._sending(session_id, to), to, "contacts", contacts=[self._card(message.card)])

    @transaction.atomic(savepoint=False)
    def send_contacts(self, session_id: str, message: OutgoingContacts) -> Sent:
        contacts = [self._card(c) for c in message.cards]
        device = self._sending(session_id, message.to)
        return self._sent(device, message.to, "contacts", contacts=contacts, displayName=message.display_name)

    @transaction.atomic(savepoint=False)
    def send_location(self, session_id: str, message: OutgoingLocation) -> Sent:
        location = {
            "latitude": message.latitude,
            "longitude": message.longitude,
            "name": message.name,
            "address": message.address,
        }
        device = self._sending(session_id, message.to)
        return self._sent(device, message.to, "location", location=location, **self._quoted(message.quoted))

    @transaction.atomic(savepoint=False)
    def send_buttons(self, session_id: str, message: OutgoingButtons) -> Sent:
        shaped = [{"buttonId": b.button_id, "buttonText": b.button_text} for b in message.buttons]
        device = self._sending(session_id, message.to)
        return self._sent(
            device, message.to, "buttons", text=message.text, footer=message.footer, buttons=shaped
        )

    @transaction.atomic(savepoint=False)
    def send_delete(self, session_id: str, message: OutgoingDelete) -> Sent:
        chat = message.to
        device = self._serial_next(session_id)  # the revoke is a message of its own (own id)
        if message.from_me:
            self._chat_ok(device, chat)
        elif not is_group(chat):
            raise EngineNotAllowed("Only your own messages can be deleted in a direct chat.")
        else:
            self._require_admin(device, self._own_group(device, chat))
        # Delete for everyone is a protocol message sent by the session (WhatsApp's REVOKE): echoed as an
        # own `message` of type `revoked` naming the message it deletes.
        revoked = {
            "revokedMessageId": message.message_id,
            "revokedSender": message.sender,
            "revokedFromMe": message.from_me,
        }
        return self._sent(device, chat, "revoked", **revoked)

    # --- contacts and profile ---------------------------------------------------------------------

    @transaction.atomic
    def check_contacts(self, session_id: str, numbers: list[str]) -> list[ContactStatus]:
        self._paired(session_id)
        return [
            ContactStatus(number=n, jid=f"{n}@{user_suffix()}", exists=not n.endswith("0000"))
            for n in numbers
        ]

    @transaction.atomic
    def set_profile_picture(self, session_id: str, image: bytes, content_type: str, target: str = "") -> None:
        device = self._paired(session_id)
        sha = hashlib.sha256(image).hexdigest()
        if target and target != device.jid:
            if not is_group(target):
                raise EngineNotAllowed("Only your own picture or a group's can be set.")
            group = self._own_group(device, target)
            self._require_admin(device, group)
            group.picture_sha256 = sha
            group.save(update_fields=["picture_sha256"])
            return
        device.picture_sha256 = sha
        device.save(update_fields=["picture_sha256"])

    @transaction.atomic
    def set_profile_status(self, session_id: str, status: str) -> None:
        device = self._paired(session_id)
        device.about = status
        device.save(update_fields=["about"])

    @transaction.atomic
    def set_profile_name(self, session_id: str, name: str) -> None:
        device = self._paired(session_id)
        device.push_name = name
        device.save(update_fields=["push_name"])
