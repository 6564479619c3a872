"""The `mentions` and `mentionAll` fields of the send, media and poll bodies (messaging.services.mentions)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from messaging.api.bases import RecipientField
from messaging.models import Session
from messaging.services.mentions import mentions_resolve

MAX_MENTIONS = 1024  # WhatsApp's largest groups


class MentionsInput(serializers.Serializer):
    mentions = serializers.ListField(
        child=RecipientField(allow_group=False),
        required=False,
        default=list,
        max_length=MAX_MENTIONS,
        help_text="People the message mentions: numbers with country code or JIDs (a linked id too). "
        "Write `@<number>` in the text where each should show.",
    )
    mentionAll = serializers.BooleanField(
        required=False,
        default=False,
        help_text="In a group: mention every participant (400 outside a group).",
    )


def mentions_input(session: Session, to: str, data: dict[str, Any]) -> tuple[str, ...]:
    """The JIDs a validated body mentions (400 for `mentionAll` outside a group, or on a channel
    without mentions)."""
    return mentions_resolve(
        session=session, to=to, mentions=data.get("mentions") or (), mention_all=data.get("mentionAll", False)
    )
