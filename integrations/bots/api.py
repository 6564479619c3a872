"""The bots' REST interface (thin: it calls integrations.bots.services). Viewer keys read; operator
and admin keys write. A bot is reached through its session, so a key sees the bots of the sessions it
may use, and another account's bot is a 404."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import ReadOrOperate
from core.errors import ValidationFailed
from integrations.bots import services
from integrations.bots.serializers import (
    BotConversationOutput,
    BotInput,
    BotOutput,
    BotPauseInput,
    BotResumeInput,
)
from messaging.api.bases import SessionKeyedView
from messaging.api.common import SuccessSerializer
from messaging.selectors import session_list


def _valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    if isinstance(data, dict):
        unknown = sorted(set(data) - set(serializer_class().fields))
        if unknown:
            raise ValidationFailed(f"unknown field(s) {', '.join(unknown)}")
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class BotView(SessionKeyedView):
    permission_classes = [ReadOrOperate]

    def bot(self, bot_id: str) -> Any:
        return services.bot_get(sessions=session_list(key=self.api_key), bot_id=bot_id)


class BotsApi(BotView):
    """`GET /api/bots?sessionId=` lists the bots (of one session, or of every session the key may use);
    `POST /api/bots` creates one."""

    @extend_schema(
        operation_id="bots_list",
        parameters=[OpenApiParameter("sessionId", str, required=False)],
        responses=BotOutput(many=True),
    )
    def get(self, request: Request) -> Response:
        sessions = session_list(key=self.api_key)
        session_id = request.query_params.get("sessionId")
        if session_id:
            sessions = sessions.filter(pk=self.session(session_id).pk)
        return Response([services.bot_data(bot) for bot in services.bots_of(sessions)])

    @extend_schema(operation_id="bots_create", request=BotInput, responses={201: BotOutput})
    def post(self, request: Request) -> Response:
        values = _valid(BotInput, request.data)
        bot = services.bot_create(session=self.session(values["sessionId"]), values=values)
        return Response(services.bot_data(bot), status=201)


class BotApi(BotView):
    """`GET|PUT|DELETE /api/bots/{id}`: PUT replaces the bot's settings and rules (the secret is kept
    unless given; the session cannot change)."""

    @extend_schema(operation_id="bots_get", responses=BotOutput)
    def get(self, request: Request, bot_id: str) -> Response:
        return Response(services.bot_data(self.bot(bot_id)))

    @extend_schema(operation_id="bots_update", request=BotInput, responses=BotOutput)
    def put(self, request: Request, bot_id: str) -> Response:
        bot = self.bot(bot_id)
        values = _valid(BotInput, request.data)
        if values["sessionId"] != str(bot.session_id):
            raise ValidationFailed("sessionId: a bot stays on its session; create a new bot for another one.")
        return Response(services.bot_data(services.bot_update(bot=bot, values=values)))

    @extend_schema(operation_id="bots_delete", responses=SuccessSerializer)
    def delete(self, request: Request, bot_id: str) -> Response:
        services.bot_delete(bot=self.bot(bot_id))
        return Response({"success": True, "message": "Bot deleted."})


class BotConversationsApi(BotView):
    """`GET /api/bots/{id}/conversations`: the chats where the bot is talking (paused ones too)."""

    @extend_schema(operation_id="bots_conversations", responses=BotConversationOutput(many=True))
    def get(self, request: Request, bot_id: str) -> Response:
        return Response(services.conversations_active(self.bot(bot_id)))


class BotConversationPauseApi(BotView):
    @extend_schema(operation_id="bots_conversation_pause", request=BotPauseInput, responses=SuccessSerializer)
    def post(self, request: Request, bot_id: str) -> Response:
        bot, values = self.bot(bot_id), _valid(BotPauseInput, request.data)
        services.conversation_pause(bot=bot, chat=values["chatId"], minutes=values["minutes"])
        return Response(
            {
                "success": True,
                "message": f"Bot paused in {values['chatId']} for {values['minutes']} minute(s).",
            }
        )


class BotConversationResumeApi(BotView):
    @extend_schema(
        operation_id="bots_conversation_resume", request=BotResumeInput, responses=SuccessSerializer
    )
    def post(self, request: Request, bot_id: str) -> Response:
        bot, values = self.bot(bot_id), _valid(BotResumeInput, request.data)
        resumed = services.conversation_resume(bot=bot, chat=values["chatId"])
        message = "Bot answers in this chat again." if resumed else "The bot was not paused in this chat."
        return Response({"success": True, "message": message})
