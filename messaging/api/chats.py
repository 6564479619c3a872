"""Chats under /api/chats: read receipts and presence; and `POST /api/sessions/{id}/restart`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator
from core.transactions import NoRequestTransaction
from messaging.api.bases import MessageView, RecipientField, SessionInput, SessionKeyedView
from messaging.api.common import SESSION_ID_PARAM, SessionOutputSerializer
from messaging.services import chats as services
from messaging.services.sessions import session_restart
from messaging.values import PRESENCES

MAX_READ_IDS = 100


class ChatReadApi(MessageView):
    """Mark received messages of a chat read (blue ticks for the sender): the ones named, or the
    newest 100 received in the chat."""

    #: The engine is called (the Graph API on official channels): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="ChatReadInput")
    class InputSerializer(SessionInput):
        chatId = RecipientField()
        messageIds = serializers.ListField(
            child=serializers.CharField(max_length=100), required=False, default=list, max_length=MAX_READ_IDS
        )

    @extend_schema_serializer(component_name="ChatReadOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        chatId = serializers.CharField()
        messageIds = serializers.ListField(child=serializers.CharField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="chats_read")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        ids = services.chat_mark_read(session=session, chat=data["chatId"], message_ids=data["messageIds"])
        return Response({"success": True, "chatId": data["chatId"], "messageIds": ids})


class ChatPresenceApi(MessageView):
    """Show the account typing (`composing`), recording audio (`recording`) or stopping (`paused`) in
    a chat, or `available`/`unavailable` (online or not) for the account."""

    #: The engine is called (the Graph API on official channels): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="ChatPresenceInput")
    class InputSerializer(SessionInput):
        chatId = RecipientField()
        presence = serializers.ChoiceField(choices=PRESENCES)

    @extend_schema_serializer(component_name="ChatPresenceOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        chatId = serializers.CharField()
        presence = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="chats_presence")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.chat_presence(session=session, chat=data["chatId"], presence=data["presence"])
        return Response({"success": True, "chatId": data["chatId"], "presence": data["presence"]})


class SessionRestartApi(NoRequestTransaction, SessionKeyedView):
    """Reconnect with the stored credentials, without logging out (409 when there are none)."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=SessionOutputSerializer,
        operation_id="sessions_restart",
    )
    def post(self, request: Request, session_id: str) -> Response:
        session = session_restart(session=self.session(session_id))
        return Response(self.session_data(session))
