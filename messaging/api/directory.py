"""The session's chats and contacts: `GET /api/chats`, `GET /api/contacts`, `GET /api/contacts/picture`.

Lists take the pagination of the sessions list (`page`, `limit`; the `data` + `meta` envelope) and come
from Ponte's own store (messaging.services.directory), for every engine and official channel.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsViewer
from core.errors import ValidationFailed
from core.transactions import NoRequestTransaction
from messaging.addressing import is_lid, normalize_jid, user_suffix
from messaging.api.bases import SessionKeyedView
from messaging.api.chat_filters import ChatFilterSerializer, MutedUntilField, chats_filtered
from messaging.api.common import MetaSerializer, PaginationQuerySerializer, envelope
from messaging.models import Session
from messaging.selectors import paginate
from messaging.services import directory_reads as services

SESSION_QUERY = OpenApiParameter("sessionId", OpenApiTypes.UUID, required=True)
CHAT_QUERY = OpenApiParameter(
    "chat",
    OpenApiTypes.STR,
    description="Only this chat: a number, a JID, or either id (`…@lid` or phone JID) of a person.",
)


class DirectoryView(SessionKeyedView):
    permission_classes = [IsViewer]

    def query_session(self, request: Request) -> Session:
        session_id = request.query_params.get("sessionId", "").strip()
        if not session_id:
            raise ValidationFailed("sessionId: required.")
        return self.session(session_id)

    def page(self, request: Request, queryset: Any, serializer: type[serializers.Serializer]) -> Response:
        pagination = PaginationQuerySerializer(data=request.query_params)
        pagination.is_valid(raise_exception=True)
        values = pagination.validated_data
        return Response(envelope(paginate(queryset, page=values["page"], limit=values["limit"]), serializer))


@extend_schema_serializer(component_name="Chat")
class ChatSerializer(serializers.Serializer):
    id = serializers.CharField(source="jid", help_text="The chat's JID (a person or a group).")
    name = serializers.CharField(
        source="display_name", help_text="The group's subject, or the person's push name; may be empty."
    )
    isGroup = serializers.BooleanField(source="is_group")
    unreadCount = serializers.IntegerField(
        source="unread_count", help_text="Received messages not marked read (POST /api/chats/read)."
    )
    lastMessageAt = serializers.DateTimeField(source="last_message_at", allow_null=True)
    archived = serializers.BooleanField()
    # The chat's state on the phone (POST /api/chats/archive, /pin, /mute, /unread; or the phone's own).
    pinned = serializers.BooleanField()
    mutedUntil = MutedUntilField(source="*")
    markedUnread = serializers.BooleanField(source="marked_unread")
    lid = serializers.SerializerMethodField(help_text="The person's linked id (`…@lid`), null when unknown.")
    pn = serializers.SerializerMethodField(help_text="The person's phone JID, null when unknown.")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_lid(self, chat: Any) -> str | None:
        return chat.jid if is_lid(chat.jid) else getattr(chat, "lid_of_pn", None)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_pn(self, chat: Any) -> str | None:
        if chat.jid.endswith("@" + user_suffix()):
            return chat.jid
        return getattr(chat, "pn_of_lid", None)


class ChatListSerializer(serializers.Serializer):
    data = ChatSerializer(many=True)
    meta = MetaSerializer()


@extend_schema_serializer(component_name="Contact")
class ContactSerializer(serializers.Serializer):
    jid = serializers.CharField()
    name = serializers.CharField(help_text="The name given in a contact card received; may be empty.")
    pushName = serializers.CharField(source="push_name", help_text="The name the person chose; may be empty.")
    blocked = serializers.BooleanField(help_text="Blocked by the session (POST /api/contacts/block).")


class ContactListSerializer(serializers.Serializer):
    data = ContactSerializer(many=True)
    meta = MetaSerializer()


class ChatListApi(DirectoryView):
    """The session's chats, newest message first; filtered by `archived`, `pinned`, `muted`,
    `markedUnread` and `labelId` when given."""

    @extend_schema(
        parameters=[SESSION_QUERY, CHAT_QUERY, PaginationQuerySerializer, ChatFilterSerializer],
        responses=ChatListSerializer,
        operation_id="chats_list",
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("chat", "").strip()
        chat = normalize_jid(raw, field="chat") if raw else ""
        session = self.query_session(request)
        chats = chats_filtered(services.chat_list(session=session, chat=chat), session, request.query_params)
        return self.page(request, chats, ChatSerializer)


class ContactListApi(DirectoryView):
    """Who the session has seen: senders' push names, contact cards received, group participants."""

    @extend_schema(
        parameters=[SESSION_QUERY, PaginationQuerySerializer],
        responses=ContactListSerializer,
        operation_id="contacts_list",
    )
    def get(self, request: Request) -> Response:
        session = self.query_session(request)
        return self.page(request, services.contact_list(session=session), ContactSerializer)


class ContactPictureApi(NoRequestTransaction, DirectoryView):
    """A contact's (or group's) profile picture URL; `url` null when hidden or absent. Asked of the
    engine (the Graph API on official channels): no request transaction held across the call."""

    @extend_schema_serializer(component_name="ContactPictureOutput")
    class OutputSerializer(serializers.Serializer):
        jid = serializers.CharField()
        url = serializers.CharField(allow_null=True)

    @extend_schema(
        parameters=[
            SESSION_QUERY,
            OpenApiParameter("jid", OpenApiTypes.STR, required=True, description="a number or a JID"),
        ],
        responses=OutputSerializer,
        operation_id="contacts_picture",
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("jid", "").strip()
        if not raw:
            raise ValidationFailed("jid: required (a number with country code or a JID).")
        jid = normalize_jid(raw, field="jid")
        session = self.query_session(request)
        return Response({"jid": jid, "url": services.contact_picture(session=session, jid=jid)})
