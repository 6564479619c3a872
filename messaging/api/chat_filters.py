"""The chat list's state and label filters (`GET /api/chats?archived=&pinned=&muted=&markedUnread=
&labelId=`) and its `mutedUntil` field (issue 41). A wrong value is a 400, never ignored."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from messaging.models import Chat, ChatLabel, Session


class ChatFilterSerializer(serializers.Serializer):
    archived = serializers.BooleanField(required=False, allow_null=True, default=None)
    pinned = serializers.BooleanField(required=False, allow_null=True, default=None)
    muted = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Muted now (`mutedUntil` in the future)."
    )
    markedUnread = serializers.BooleanField(required=False, allow_null=True, default=None)
    labelId = serializers.CharField(
        required=False, max_length=32, help_text="Only chats carrying this label (GET /api/labels)."
    )


def chats_filtered(chats: QuerySet[Chat], session: Session, params: Mapping[str, Any]) -> QuerySet[Chat]:
    query = ChatFilterSerializer(data={k: params[k] for k in ChatFilterSerializer().fields if k in params})
    query.is_valid(raise_exception=True)
    wanted = query.validated_data
    for name, column in (("archived", "archived"), ("pinned", "pinned"), ("markedUnread", "marked_unread")):
        if wanted.get(name) is not None:
            chats = chats.filter(**{column: wanted[name]})
    if wanted.get("muted") is not None:
        muted = Q(muted_until__gt=timezone.now())
        chats = chats.filter(muted if wanted["muted"] else ~muted | Q(muted_until__isnull=True))
    if wanted.get("labelId"):
        labelled = ChatLabel.objects.filter(label__session=session, label__label_id=wanted["labelId"])
        chats = chats.filter(jid__in=labelled.values("chat"))
    return chats


@extend_schema_field(OpenApiTypes.DATETIME)
class MutedUntilField(serializers.Field):
    """When the chat's mute ends (ISO 8601); null when it is not muted now."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, chat: Chat) -> str | None:
        until: datetime | None = chat.muted_until
        if until is None or until <= timezone.now():
            return None
        return serializers.DateTimeField().to_representation(until)
