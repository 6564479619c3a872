"""The sandbox's media, chat and connection operations, a mixin of SandboxEngine.

Sent media is stored like received media (messaging.media) so the own-message echo carries a working
`mediaUrl`; read receipts and presence are checked (paired, chat reachable) and otherwise accepted, as
WhatsApp answers nothing to them; `restart` reconnects with the stored credentials, and the inbound
route's `disconnected` event plays the phone logging out, another client taking over, a ban or a stream
error.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from messaging.engines.base import EngineNotConnected, OutgoingMedia, Sent
from messaging.engines.events import ConnectedEvent, DisconnectedEvent
from messaging.media import media_save

# Disconnections after which the phone must pair again (the credentials are gone on WhatsApp's side).
CREDENTIALS_LOST = ("logged_out", "banned")


class SandboxMedia:
    @transaction.atomic(savepoint=False)
    def send_media(self, session_id: str, message: OutgoingMedia) -> Sent:
        to, media, quoted = message.to, message.media, message.quoted
        device = self._sending(session_id, to)
        stored = media_save(session_id, media.data, media.mime_type, media.file_name)
        fields: dict[str, Any] = {
            "mediaUrl": stored.url,
            "mimeType": stored.mime_type,
            "sha256": stored.sha256,
            "size": stored.size,
            "caption": media.caption,
            **self._quoted(quoted),
        }
        if message.mentions:
            fields["mentions"] = list(message.mentions)
        if media.file_name:
            fields["fileName"] = media.file_name
        if media.type in ("audio", "voice"):
            fields["voice"] = media.type == "voice"
        if media.type == "voice":
            fields.update(seconds=media.seconds, waveform=media.waveform)
        return self._sent(device, to, "audio" if media.type == "voice" else media.type, **fields)

    @transaction.atomic
    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        self._chat_ok(self._paired(session_id), chat)

    @transaction.atomic
    def send_presence(self, session_id: str, chat: str, presence: str) -> None:
        device = self._paired(session_id)
        if presence in ("composing", "recording", "paused"):
            self._chat_ok(device, chat)

    @transaction.atomic
    def restart(self, session_id: str) -> None:
        device = self._device(session_id)
        if not device.credentials:
            raise EngineNotConnected("No stored credentials to reconnect with; pair the phone again.")
        phone = device.credentials.get("phone", "")
        self.report(
            str(session_id),
            ConnectedEvent(jid=device.jid, phone=phone, push_name=device.push_name, platform="sandbox"),
        )

    def _inject_disconnected(self, session_id: str, reason: str) -> DisconnectedEvent:
        """The connection drops; after a logout on the phone or a ban the credentials are gone."""
        device = self._device(session_id)
        if reason in CREDENTIALS_LOST:
            device.credentials = None
            device.save(update_fields=["credentials"])
        return DisconnectedEvent(reason=reason)

    def _inbound_media(self, session_id: str, media: dict[str, Any]) -> dict[str, Any]:
        """The sandbox's "download" of an inbound media: the given bytes, stored and linked."""
        stored = media_save(session_id, media["data"], media.get("mimeType", ""), media.get("fileName", ""))
        fields = {
            "mediaUrl": stored.url,
            "mimeType": stored.mime_type,
            "sha256": stored.sha256,
            "size": stored.size,
        }
        if stored.file_name:
            fields["fileName"] = stored.file_name
        return fields
