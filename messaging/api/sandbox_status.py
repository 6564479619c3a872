"""The sandbox inbound route's `status` event: a contact posts a status (story) the session sees, or
deletes one (`type: "revoked"`). Validated into the data SandboxEngine.inject takes."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from messaging.api.sandbox_fields import InboundSerializer, Jid, Named, OptionalText, optional_text
from messaging.api.sandbox_messages import InboundMedia
from messaging.values import STATUS_FONTS, STATUS_TYPES

COLOR = r"^#[0-9A-Fa-f]{6}$"


class StatusInbound(InboundSerializer):
    """A contact's status: `text` (with `backgroundColor`, `font`), `image` or `video` (`media` bytes,
    `caption`), or `revoked` (its author deleted the status `statusId`)."""

    event = Named("status")
    from_ = Jid(allow_group=False)
    type = serializers.ChoiceField(choices=STATUS_TYPES, default="text")
    statusId = OptionalText(max_length=100)
    pushName = optional_text(100)
    text = optional_text(700)
    backgroundColor = serializers.RegexField(COLOR, required=False)
    font = serializers.IntegerField(min_value=0, max_value=STATUS_FONTS - 1, required=False)
    caption = optional_text(1024)
    media = InboundMedia(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["type"]
        if kind == "text" and not attrs["text"]:
            raise serializers.ValidationError({"text": "required for a text status."})
        if kind in ("image", "video") and "media" not in attrs:
            raise serializers.ValidationError({"media": f"required for an {kind} status (the bytes)."})
        if kind == "revoked" and "statusId" not in attrs:
            raise serializers.ValidationError({"statusId": "required: the status its author deleted."})
        return attrs
