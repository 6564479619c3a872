"""The filters of the gateway's delivery log (`GET /gateway/webhooks/{id}/deliveries`) and dead letters
(`GET /gateway/dead-letters`). Unlike the account area's, a wrong value is a 400 naming the parameter,
as on the other keyed lists; a session or webhook the key may not see is a 404."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from rest_framework import serializers

from core.filters import SerializerFieldFilter
from webhooks.catalogue import ALIASES, ON_REQUEST, SUBSCRIBABLE, canonical_event
from webhooks.models import Delivery
from webhooks.registered.delivery_log import session_visible, webhook_visible

STATUSES = [status for status, _label in Delivery.Status.choices]


class EventNameField(serializers.CharField):
    """An event name of the catalogue, an alias (read as its canonical name) or `webhook.test`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=40, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data).strip().lower()
        if value in ON_REQUEST:
            return value
        canonical = canonical_event(value)
        if canonical is None:
            names = ", ".join([*SUBSCRIBABLE, *ON_REQUEST])
            raise serializers.ValidationError(
                f"unknown event {value!r}; use one of {names} (aliases: {', '.join(ALIASES)})"
            )
        return canonical


class DeliveryLogFilterSet(django_filters.FilterSet):
    status = SerializerFieldFilter(
        serializers.ChoiceField(choices=STATUSES, required=False, help_text="Only deliveries in this state."),
        query_name="status",
        field_name="status",
    )
    event = SerializerFieldFilter(
        EventNameField(required=False, help_text="Only this event (aliases accepted)."),
        query_name="event",
        field_name="event__name",
    )
    since = SerializerFieldFilter(
        serializers.DateTimeField(required=False, help_text="Created at or after (ISO 8601)."),
        query_name="since",
        field_name="created_at",
        lookup_expr="gte",
    )
    until = SerializerFieldFilter(
        serializers.DateTimeField(required=False, help_text="Created before (ISO 8601)."),
        query_name="until",
        field_name="created_at",
        lookup_expr="lt",
    )


class DeadLetterFilterSet(django_filters.FilterSet):
    sessionId = SerializerFieldFilter(
        serializers.CharField(max_length=64, required=False, help_text="Only this session's dead letters."),
        query_name="sessionId",
        field_name="session_id",
        method="filter_session",
    )
    webhookId = SerializerFieldFilter(
        serializers.CharField(max_length=32, required=False, help_text="Only this webhook's dead letters."),
        query_name="webhookId",
        field_name="webhook_id",
        method="filter_webhook",
    )

    def filter_session(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(session_id=session_visible(key=self.request.auth, session_id=value))

    def filter_webhook(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(webhook=webhook_visible(key=self.request.auth, webhook_id=value))
