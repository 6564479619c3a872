"""The sandbox's status (stories) operations, a mixin of SandboxEngine.

Deterministic like the rest of the sandbox: a status's id comes from the device's message counter, its
media is stored like a sent media (messaging.media) so the session's own status list links to the
bytes. "WhatsApp" keeps nothing else: the services record the session's statuses from the answers, and
contacts' statuses arrive through the inbound route's `status` event (messaging.engines.sandbox_inbound).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from messaging.engines.base import MediaPayload, StatusPosted
from messaging.engines.events import event_from_data
from messaging.engines.sandbox_groups import sandbox_digest
from messaging.engines.status_events import StatusEvent
from messaging.media import media_save
from messaging.models import SandboxDevice


class SandboxStatus:
    @transaction.atomic
    def status_text(self, session_id: str, text: str, background_color: str, font: int) -> StatusPosted:
        device = self._serial_next(session_id)
        return StatusPosted(status_id=self._message_id(device), timestamp=timezone.now())

    @transaction.atomic
    def status_media(self, session_id: str, media: MediaPayload) -> StatusPosted:
        device = self._serial_next(session_id)
        stored = media_save(session_id, media.data, media.mime_type, media.file_name)
        return StatusPosted(
            status_id=self._message_id(device), timestamp=timezone.now(), media_url=stored.url
        )

    @transaction.atomic
    def status_delete(self, session_id: str, status_id: str) -> None:
        self._paired(session_id)  # the services found the status among the session's own

    def _inject_status(self, device: SandboxDevice, data: dict[str, Any], now: int) -> StatusEvent:
        """A contact's status arrives (validated by messaging.api.sandbox_status); its media is stored
        like an inbound message's."""
        fields: dict[str, Any] = {
            "id": data.get("statusId") or _status_id(device, data, now),
            "sender": data["from"],
            "pushName": data.get("pushName", ""),
            "type": data["type"],
            "text": data.get("text", ""),
            "timestamp": now,
        }
        if data["type"] == "text":
            fields.update(backgroundColor=data.get("backgroundColor", "#000000"), font=data.get("font", 0))
        if data.get("media"):
            media = self._inbound_media(str(device.session_id), data["media"])
            fields.update(caption=data.get("caption", ""), **media)
        return event_from_data("status", fields)


def _status_id(device: SandboxDevice, data: dict[str, Any], now: int) -> str:
    """A contact's status without its own id: one derived from what it is (deterministic)."""
    digest = sandbox_digest("status", device.session_id, data["from"], now, data.get("text", ""))
    return "3EB0" + digest.hex()[:16].upper()
