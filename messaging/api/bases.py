"""The bases of the messaging views: a view on the caller's sessions, its paged lists, the message
views (a body naming a session), and the input every such body starts from."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import QuerySet
from rest_framework import serializers

from accounts.api_bases import KeyedAPIView, KeyedListAPIView
from accounts.permissions import IsOperator
from messaging.addressing import normalize_jid, user_suffix
from messaging.api.common import PaginationQuerySerializer, SessionOutputSerializer
from messaging.channels import PAGE_PROVIDERS
from messaging.idempotency import IdempotentMixin
from messaging.selectors import Page, paginate, session_allowed, session_find, session_get

# A page-scoped user id of an official channel (Messenger PSID, Instagram IGSID).
_CHANNEL_ID = re.compile(r"^[0-9]{8,20}$")


class SessionKeyedView(KeyedAPIView):
    def session(self, session_id: str):
        return session_get(key=self.api_key, session_id=session_id)

    def session_data(self, session) -> dict:
        return SessionOutputSerializer(session, context={"key": self.api_key}).data


class PagedListView(SessionKeyedView, KeyedListAPIView):
    """A list filtered by the view's `filterset_class` and paged by `page` and `limit`: the filter
    backend checks both in one pass (core.filters.FilterBackend), so `page_of` finds them valid."""

    query_serializer_class = PaginationQuerySerializer

    def page_of(self, queryset: QuerySet) -> Page:
        paging = self.query_serializer_class(data=self.request.query_params)
        paging.is_valid(raise_exception=True)
        return paginate(queryset, page=paging.validated_data["page"], limit=paging.validated_data["limit"])


class RecipientField(serializers.CharField):
    """A number with country code or a JID (individual or group), returned as a full JID."""

    def __init__(self, *, allow_group: bool = True, **kwargs: Any) -> None:
        self.allow_group = allow_group
        super().__init__(max_length=100, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        local, _, domain = value.strip().partition("@")
        if self.context.get("channel_ids") and _CHANNEL_ID.match(local) and domain in ("", user_suffix()):
            # Messenger PSIDs and Instagram IGSIDs are longer than any phone number.
            return f"{local}@{user_suffix()}"
        # A list's items are bound without a name: they answer for the list (`mentions`).
        field = self.field_name or getattr(self.parent, "field_name", "")
        return normalize_jid(value, allow_group=self.allow_group, field=field)


class SessionInput(serializers.Serializer):
    sessionId = serializers.CharField(max_length=64)


class MessageView(IdempotentMixin, SessionKeyedView):
    """The request's transaction (as ATOMIC_REQUESTS would, or the view's own with an `Idempotency-Key`:
    messaging.idempotency) is the unit of work, except on the sending routes (SendView). Sends pass
    `savepoint=False`: where a caller's transaction is open around them, it fails as a whole on any
    error."""

    permission_classes = [IsOperator]

    def validated(self, serializer_class: type[serializers.Serializer]) -> tuple[Any, dict[str, Any]]:
        """Validate the body, then refuse a session not found (404) or not allowed (403): nothing invalid
        reaches a service. The session is read once, before validating, because a Messenger or Instagram
        session's recipients are page-scoped ids, not phone numbers."""
        raw = self.request.data.get("sessionId") if hasattr(self.request.data, "get") else None
        found = session_find(key=self.api_key, session_id=str(raw).strip()) if raw is not None else None
        page_channel = found is not None and found.provider in PAGE_PROVIDERS
        data = serializer_class(data=self.request.data, context={"channel_ids": page_channel})
        data.is_valid(raise_exception=True)
        # The same id: the field trims the value as the read above did.
        session_id = data.validated_data["sessionId"]
        return session_allowed(key=self.api_key, session_id=session_id, session=found), data.validated_data


class SendView(MessageView):
    """A route that sends a message: no request transaction around it. The send's service commits its
    own short steps (the quota, then the record once the engine has answered), so sends to one chat or
    one account do not wait on each other across the engine's round trip
    (messaging.services.messages.message_send)."""

    request_transaction = False


class EngineCallView(MessageView):
    """A route whose service calls the session's engine and records its answer: no request transaction
    around it. An engine reached over a network (an engine process over the bus) is asked in no
    transaction and the service records the answer in a short one of its own (docs/decisions/0021)."""

    request_transaction = False


class SandboxView(SessionKeyedView):
    permission_classes = [IsOperator]
