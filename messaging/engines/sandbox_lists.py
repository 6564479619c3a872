"""The sandbox's list messages, forwards and link previews (a mixin of SandboxEngine, kept apart so each
module stays small). Each is a message like any other, echoed as an own `message` event: `list` with its
sections, a forwarded copy with `forwarded: true`, a text with its `linkPreview` (the thumbnail is not
echoed: WhatsApp's events carry none either)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from messaging.engines.base import (
    ForwardContent,
    OutgoingForward,
    OutgoingList,
    OutgoingTextPreview,
    Sent,
)
from messaging.engines.outgoing import list_wire
from messaging.media import media_save


class SandboxLists:
    @transaction.atomic(savepoint=False)
    def send_list(self, session_id: str, message: OutgoingList) -> Sent:
        device = self._sending(session_id, message.to)
        return self._sent(
            device, message.to, "list", text=message.message.text, list=list_wire(message.message)
        )

    @transaction.atomic(savepoint=False)
    def send_text_preview(self, session_id: str, message: OutgoingTextPreview) -> Sent:
        preview = message.preview
        card = {"url": preview.url, "title": preview.title, "description": preview.description}
        device = self._sending(session_id, message.to)
        quoted = self._quoted(message.quoted)
        mentioned = {"mentions": list(message.mentions)} if message.mentions else {}
        return self._sent(
            device, message.to, "text", text=message.text, linkPreview=card, **quoted, **mentioned
        )

    @transaction.atomic(savepoint=False)
    def send_forward(self, session_id: str, message: OutgoingForward) -> Sent:
        device = self._sending(session_id, message.to)
        type_, fields = self._forward_fields(session_id, message.content)
        return self._sent(device, message.to, type_, forwarded=True, **fields)

    @staticmethod
    def _forward_fields(session_id: str, content: ForwardContent) -> tuple[str, dict[str, Any]]:
        if content.type == "media" and content.media is not None:
            media = content.media
            stored = media_save(session_id, media.data, media.mime_type, media.file_name)
            fields: dict[str, Any] = {
                "mediaUrl": stored.url,
                "mimeType": stored.mime_type,
                "sha256": stored.sha256,
                "size": stored.size,
                "caption": media.caption,
            }
            if media.file_name:
                fields["fileName"] = media.file_name
            if media.type in ("audio", "voice"):
                fields["voice"] = media.type == "voice"
            return ("audio" if media.type == "voice" else media.type), fields
        if content.type == "location":
            place = {
                "latitude": content.latitude,
                "longitude": content.longitude,
                "name": content.name,
                "address": content.address,
            }
            return "location", {"location": place}
        if content.type == "contacts":
            cards = [{"displayName": c.display_name, "vcard": c.vcard} for c in content.cards]
            return "contacts", {"contacts": cards, "displayName": content.display_name}
        if content.type == "poll":
            poll = {
                "name": content.name,
                "options": list(content.options),
                "selectableCount": content.selectable_count,
            }
            return "poll", {"poll": poll}
        return "text", {"text": content.text}
