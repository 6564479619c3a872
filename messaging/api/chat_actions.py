"""Chat and contact actions (issue 41): `POST /api/chats/archive`, `/pin`, `/mute`, `/unread`,
`POST /api/contacts/block` and `GET /api/contacts/blocked`.

Each action asks the session's engine and answers with the chat as `GET /api/chats` lists it; what it
changed is also emitted as an event (`chat_archive`, `chat_pin`, `chat_mute`, `chat_unread`,
`contact_block`), as the same change made on the phone is. Writes need an operator key, like the other
messaging writes; the blocked list is read with any key.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from messaging.api.bases import MessageView, RecipientField, SessionInput
from messaging.api.common import PaginationQuerySerializer
from messaging.api.directory import (
    SESSION_QUERY,
    ChatSerializer,
    ContactListSerializer,
    ContactSerializer,
    DirectoryView,
)
from messaging.services import chat_state as services
from messaging.services.directory_reads import chat_list


class _ChatActionApi(MessageView):
    #: The engine is called (engine processes, the Graph API): no transaction held across it.
    request_transaction = False
    action: ClassVar[str] = ""
    field: ClassVar[str] = ""

    def value(self, data: dict[str, Any]) -> Any:
        return data[self.field]

    def act(self, serializer_class: type[serializers.Serializer]) -> Response:
        session, data = self.validated(serializer_class)
        chat_id = data["chatId"]
        services.chat_state_set(session=session, chat=chat_id, action=self.action, value=self.value(data))
        chat = chat_list(session=session).get(jid=chat_id)
        return Response(ChatSerializer(chat).data)


@extend_schema_serializer(component_name="ChatArchiveInput")
class ChatArchiveInput(SessionInput):
    chatId = RecipientField()
    archived = serializers.BooleanField()


@extend_schema_serializer(component_name="ChatPinInput")
class ChatPinInput(SessionInput):
    chatId = RecipientField()
    pinned = serializers.BooleanField()


@extend_schema_serializer(component_name="ChatMuteInput")
class ChatMuteInput(SessionInput):
    chatId = RecipientField()
    until = serializers.DateTimeField(
        allow_null=True, help_text="When the mute ends (ISO 8601, in the future); null unmutes."
    )

    def validate_until(self, value: Any) -> Any:
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError("must be in the future (or null to unmute).")
        return value


@extend_schema_serializer(component_name="ChatUnreadInput")
class ChatUnreadInput(SessionInput):
    chatId = RecipientField()
    unread = serializers.BooleanField()


class ChatArchiveApi(_ChatActionApi):
    """Archive a chat (`archived: true`) or bring it back; a new received message unarchives it."""

    action, field = "archive", "archived"

    @extend_schema(request=ChatArchiveInput, responses=ChatSerializer, operation_id="chats_archive")
    def post(self, request: Request) -> Response:
        return self.act(ChatArchiveInput)


class ChatPinApi(_ChatActionApi):
    """Pin a chat to the top of the phone's list (WhatsApp allows three), or unpin it."""

    action, field = "pin", "pinned"

    @extend_schema(request=ChatPinInput, responses=ChatSerializer, operation_id="chats_pin")
    def post(self, request: Request) -> Response:
        return self.act(ChatPinInput)


class ChatMuteApi(_ChatActionApi):
    """Mute a chat's notifications until a time (`until`), or unmute it (`until: null`)."""

    action, field = "mute", "until"

    def value(self, data: dict[str, Any]) -> Any:
        return data["until"].isoformat() if data["until"] is not None else None

    @extend_schema(request=ChatMuteInput, responses=ChatSerializer, operation_id="chats_mute")
    def post(self, request: Request) -> Response:
        return self.act(ChatMuteInput)


class ChatUnreadApi(_ChatActionApi):
    """Mark a chat unread (`unread: true`: the phone shows it with a dot) or read again."""

    action, field = "unread", "unread"

    @extend_schema(request=ChatUnreadInput, responses=ChatSerializer, operation_id="chats_unread")
    def post(self, request: Request) -> Response:
        return self.act(ChatUnreadInput)


class ContactBlockApi(MessageView):
    """Block a contact (`blocked: true`) or unblock it. Sends to a blocked contact answer 409
    CONTACT_BLOCKED."""

    request_transaction = False

    @extend_schema_serializer(component_name="ContactBlockInput")
    class InputSerializer(SessionInput):
        jid = RecipientField(allow_group=False)
        blocked = serializers.BooleanField()

    @extend_schema_serializer(component_name="ContactBlockOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        jid = serializers.CharField()
        blocked = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="contacts_block")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.contact_block_set(session=session, jid=data["jid"], blocked=data["blocked"])
        return Response({"success": True, "jid": data["jid"], "blocked": data["blocked"]})


class ContactBlockedListApi(DirectoryView):
    """The contacts the session has blocked (through the API or on the phone)."""

    @extend_schema(
        parameters=[SESSION_QUERY, PaginationQuerySerializer],
        responses=ContactListSerializer,
        operation_id="contacts_blocked",
    )
    def get(self, request: Request) -> Response:
        session = self.query_session(request)
        return self.page(request, services.blocked_contacts(session=session), ContactSerializer)
