"""The filters of the messaging lists: sessions (`/api/sessions`, `/gateway/sessions`) and message history
(`/api/messages`). A wrong value is a 400 in the interface's error shape, never ignored."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import OuterRef, Q, QuerySet
from rest_framework import serializers

from core.filters import SerializerFieldFilter
from messaging.addressing import is_group, is_lid, normalize_jid
from messaging.models import LidMapping
from messaging.selectors import session_get, status_parse


class StatusField(serializers.CharField):
    """A session status as clients send it; `QRCODE` is read as `qr`."""

    def to_internal_value(self, data: Any) -> str:
        return status_parse(super().to_internal_value(data))


class ChatField(serializers.CharField):
    """A chat as clients send it: a number with country code or a JID (individual or group), read as
    the full JID."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=100, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        return normalize_jid(super().to_internal_value(data), allow_group=True, field=self.field_name)


class SessionFilterSet(django_filters.FilterSet):
    status = SerializerFieldFilter(StatusField(required=False), query_name="status", field_name="status")


class MessageFilterSet(django_filters.FilterSet):
    sessionId = SerializerFieldFilter(
        serializers.CharField(max_length=64),
        query_name="sessionId",
        field_name="session_id",
        method="filter_session",
    )
    chat = SerializerFieldFilter(
        ChatField(required=False), query_name="chat", field_name="chat", method="filter_chat"
    )

    def filter_session(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        # The caller's session, looked up once every parameter is valid: 404 when it is not the
        # account's, 403 when the key is limited to other sessions.
        return queryset.filter(session=session_get(key=self.request.auth, session_id=value))

    def filter_chat(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        """The chat's messages under either of its person's ids (a `…@lid` and a phone JID known as one:
        messaging.services.lids), in one statement."""
        if is_group(value):
            return queryset.filter(chat=value)
        known, other = ("lid", "pn") if is_lid(value) else ("pn", "lid")
        aliases = LidMapping.objects.filter(session=OuterRef("session"), **{known: value}).values(other)
        return queryset.filter(Q(chat=value) | Q(chat__in=aliases))
