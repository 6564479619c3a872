"""The filters of the webhook lists: registered webhooks (`GET /gateway/webhooks`) and the account area's
delivery log (`/account/deliveries/`). Both ignore a value that can match nothing rather than refuse it:
an id that is no session id lists no webhook; an unknown delivery status filters nothing."""

from __future__ import annotations

import uuid

import django_filters
from django.db.models import QuerySet

from webhooks.models import Delivery


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class WebhookFilterSet(django_filters.FilterSet):
    # Taken as sent (not stripped): " <id>" is no session id.
    sessionId = django_filters.CharFilter(
        field_name="session_id",
        method="filter_session",
        strip=False,
        help_text="Only this session's webhooks.",
    )

    def filter_session(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(**{name: value}) if _is_uuid(value) else queryset.none()


class DeliveryFilterSet(django_filters.FilterSet):
    status = django_filters.CharFilter(method="filter_status", strip=False)

    def filter_status(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(status=value) if value in Delivery.Status.values else queryset
