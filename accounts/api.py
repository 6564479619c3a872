"""The account's own endpoints: who am I (`/api/me`, `/gateway/me`) and its keys (`/api/keys`)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView
from accounts.models import ApiKey
from accounts.permissions import IsAdmin, IsViewer
from accounts.selectors import api_key_list
from accounts.services import api_key_create, api_key_revoke
from core.errors import NotFound

KEY_MAX_LIFETIME_YEARS = 50


class KeyOutputSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True)

    class Meta:
        model = ApiKey
        fields = [
            "id",
            "name",
            "role",
            "prefix",
            "status",
            "expires_at",
            "allowed_ips",
            "allowed_sessions",
            "last_used_at",
            "revoked_at",
            "created_at",
        ]


class MeApi(KeyedAPIView):
    """Who am I: the calling key, its account and plan limits. Any role."""

    permission_classes = [IsViewer]

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        # A read of the caller's own key: no request transaction (ATOMIC_REQUESTS costs a keyed call a
        # fifth of its CPU). Its one possible write, last use once a minute, is a single UPDATE.
        return transaction.non_atomic_requests(super().as_view(**initkwargs))

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        # Inside a transaction already open (a test's), a savepoint even so: DRF's set_rollback marks the
        # innermost block, so an error then rolls back this request alone (as in messaging.idempotency).
        if transaction.get_connection().in_atomic_block:
            with transaction.atomic():
                return super().dispatch(request, *args, **kwargs)
        return super().dispatch(request, *args, **kwargs)

    class OutputSerializer(serializers.Serializer):
        account = serializers.CharField(source="account.name")
        plan = serializers.CharField(source="account.plan.name")
        requests_per_minute = serializers.IntegerField(
            source="account.plan.requests_per_minute", allow_null=True
        )
        max_active_sessions = serializers.IntegerField(source="account.plan.max_active_sessions")
        messages_per_day = serializers.IntegerField(source="account.plan.messages_per_day", allow_null=True)
        max_webhooks = serializers.IntegerField(source="account.plan.max_webhooks", allow_null=True)
        key = KeyOutputSerializer(source="*")

    @extend_schema(responses=OutputSerializer, operation_id="me")
    def get(self, request: Request) -> Response:
        return Response(me_body(self.api_key))


# One field renders every date of `/api/me`, so its dates read as every other reply's (DRF's format and
# the current time zone).
_DATE = serializers.DateTimeField()


def me_body(key: ApiKey) -> dict[str, Any]:
    """`/api/me`'s reply, as MeApi.OutputSerializer describes it (a test holds the two equal). Written out:
    a ModelSerializer builds its fields from the model for every instance, which cost this route as much
    as its key check, and walking eighteen DRF fields costs a third of that again."""
    plan = key.account.plan
    dates = {name: getattr(key, name) for name in ("expires_at", "last_used_at", "revoked_at", "created_at")}
    return {
        "account": key.account.name,
        "plan": plan.name,
        "requests_per_minute": plan.requests_per_minute,
        "max_active_sessions": plan.max_active_sessions,
        "messages_per_day": plan.messages_per_day,
        "max_webhooks": plan.max_webhooks,
        "key": {
            "id": key.pk,
            "name": key.name,
            "role": key.role,
            "prefix": key.prefix,
            "status": key.status,
            "expires_at": _DATE.to_representation(dates["expires_at"]),
            "allowed_ips": key.allowed_ips,
            "allowed_sessions": key.allowed_sessions,
            "last_used_at": _DATE.to_representation(dates["last_used_at"]),
            "revoked_at": _DATE.to_representation(dates["revoked_at"]),
            "created_at": _DATE.to_representation(dates["created_at"]),
        },
    }


class KeyListCreateApi(KeyedAPIView):
    """List the account's keys, or issue one (admin keys only). A new key is shown once. A restricted
    key lists only keys no wider than itself (sessions, IP ranges, expiry) and issues only such keys: a
    limit left out is the calling key's, asking for more is a 403 naming the limit."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
        role = serializers.ChoiceField(choices=ApiKey.Role.choices)
        expires_at = serializers.DateTimeField(
            required=False,
            allow_null=True,
            default=None,
            help_text=f"In the future, at most {KEY_MAX_LIFETIME_YEARS} years ahead; null: never expires.",
        )
        allowed_ips = serializers.ListField(child=serializers.CharField(), required=False, default=list)
        allowed_sessions = serializers.ListField(child=serializers.CharField(), required=False, default=list)

        def validate_expires_at(self, value: datetime | None) -> datetime | None:
            # A date far in the past or future is a typo (year 1245 or 20270), never a wanted expiry.
            now = timezone.now()
            if value is not None and not now < value <= now + timedelta(days=365 * KEY_MAX_LIFETIME_YEARS):
                raise serializers.ValidationError(
                    f"must be in the future and at most {KEY_MAX_LIFETIME_YEARS} years ahead."
                )
            return value

    class CreatedSerializer(KeyOutputSerializer):
        key = serializers.CharField(read_only=True, help_text="The full key, shown only in this reply.")

        class Meta(KeyOutputSerializer.Meta):
            fields = [*KeyOutputSerializer.Meta.fields, "key"]

    @extend_schema(
        responses=inline_serializer("KeyList", {"data": KeyOutputSerializer(many=True)}),
        operation_id="keys_list",
    )
    def get(self, request: Request) -> Response:
        keys = api_key_list(account=self.api_key.account, by=self.api_key)
        return Response({"data": KeyOutputSerializer(keys, many=True).data})

    @extend_schema(request=InputSerializer, responses={201: CreatedSerializer}, operation_id="keys_create")
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key, plaintext = api_key_create(
            account=self.api_key.account, creator=self.api_key, **data.validated_data
        )
        key.key = plaintext
        return Response(self.CreatedSerializer(key).data, status=201)


class KeyRevokeApi(KeyedAPIView):
    """Revoke one of the account's keys (admin keys only); a restricted key, only keys no wider than
    itself."""

    permission_classes = [IsAdmin]

    @extend_schema(responses=KeyOutputSerializer, operation_id="keys_revoke")
    def delete(self, request: Request, key_id: int) -> Response:
        key = self.api_key.account.api_keys.filter(pk=key_id).first()
        if key is None:
            raise NotFound("No such key in this account.")
        return Response(KeyOutputSerializer(api_key_revoke(key=key, by=self.api_key)).data)


class GatewayMeApi(MeApi):
    """The same identity endpoint on the gateway mount."""

    @extend_schema(responses=MeApi.OutputSerializer, operation_id="gateway_me")
    def get(self, request: Request) -> Response:
        return super().get(request)
