"""Pieces shared by the messaging views: pagination, the session record, the session id parameter."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from accounts.permissions import role_at_least
from messaging.models import Session
from messaging.selectors import Page
from messaging.services.sessions import session_engine_label

MAX_PAGE_LIMIT = 100
# Far beyond any real list, and keeps (page - 1) * limit inside the database's OFFSET range.
MAX_PAGE = 1_000_000
DEFAULT_PAGE_LIMIT = 20

SESSION_ID_PARAM = OpenApiParameter("session_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class PaginationQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, required=False, default=1)
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_LIMIT, required=False, default=DEFAULT_PAGE_LIMIT
    )


class MetaSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    page = serializers.IntegerField()
    limit = serializers.IntegerField()
    totalPages = serializers.IntegerField()


def envelope(page: Page, serializer_class: type[serializers.Serializer], **context: Any) -> dict[str, Any]:
    return {"data": serializer_class(page.items, many=True, context=context).data, "meta": page.meta}


class SessionOutputSerializer(serializers.Serializer):
    """A session. `instanceKey` and `instanceKeyPrefix` only for admin keys (context `key`); the key
    itself only in the reply that issued it (creation, regeneration), null in every other."""

    id = serializers.UUIDField()
    name = serializers.CharField()
    status = serializers.CharField()
    reason = serializers.CharField(
        source="status_reason",
        help_text="Why the session is disconnected or limited: logout, logged_out (on the phone), "
        "replaced, banned, stream_error, ...; empty while all is well.",
    )
    engine = serializers.SerializerMethodField()
    provider = serializers.CharField()
    official = serializers.BooleanField()
    jid = serializers.CharField(allow_null=True)
    phone = serializers.CharField(allow_null=True)
    profileName = serializers.CharField(source="profile_name")
    profileStatus = serializers.CharField(source="profile_status")
    hasProfilePicture = serializers.SerializerMethodField()
    hasCredentials = serializers.SerializerMethodField(
        help_text="Official channels: whether credentials are stored (they are never returned)."
    )
    qrExpiresAt = serializers.DateTimeField(source="qr_expires_at", allow_null=True)
    connectedAt = serializers.DateTimeField(source="connected_at", allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(source="updated_at")
    instanceKey = serializers.CharField(
        source="instance_key",
        allow_null=True,
        required=False,
        help_text="Admin keys: the instance key in the reply that issued it (creation, "
        "POST /api/sessions/{id}/instance-key), null otherwise: it is stored only as a digest.",
    )
    instanceKeyPrefix = serializers.CharField(
        source="instance_key_prefix",
        required=False,
        help_text="Admin keys: the first characters of the instance key, to tell keys apart.",
    )

    def get_engine(self, session: Session) -> str:
        return session_engine_label(session)

    def get_hasCredentials(self, session: Session) -> bool:
        if not session.official:
            return False
        channel = getattr(session, "channel", None) if hasattr(session, "channel") else None
        return bool(channel and channel.credentials)

    def get_hasProfilePicture(self, session: Session) -> bool:
        return bool(session.profile_picture)

    def to_representation(self, instance: Session) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["jid"] = data["jid"] or None
        data["phone"] = data["phone"] or None
        if not role_at_least(self.context.get("key"), "admin"):
            data.pop("instanceKey", None)
            data.pop("instanceKeyPrefix", None)
        return data


class SessionListSerializer(serializers.Serializer):
    data = SessionOutputSerializer(many=True)
    meta = MetaSerializer()


class SuccessSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
