"""Channels (WhatsApp's newsletters): `GET|POST /api/channels`, `POST /api/channels/follow`,
`POST /api/channels/unfollow`, `GET /api/channels/messages`. Posting to an owned channel is a send to its
`…@newsletter` JID through the message routes. (Named `newsletters` here: Ponte's `channels` modules are
the official channels; the routes keep WhatsApp's public word, decision record 0034.)"""

from __future__ import annotations

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator, IsViewer
from core.errors import ValidationFailed
from core.transactions import NoRequestTransaction
from messaging.addressing import NEWSLETTER_SUFFIX
from messaging.api.bases import SendView, SessionInput
from messaging.api.common import MetaSerializer, PaginationQuerySerializer, SuccessSerializer
from messaging.api.directory import SESSION_QUERY, DirectoryView
from messaging.api.messages import MessageOutputSerializer
from messaging.services import newsletters as services
from messaging.status_models import Newsletter

JID = rf"^[0-9]{{6,30}}@{NEWSLETTER_SUFFIX}$"


@extend_schema_serializer(component_name="Channel")
class ChannelSerializer(serializers.Serializer):
    jid = serializers.CharField(help_text="`<digits>@newsletter`: send to it to post (owners only).")
    name = serializers.CharField()
    description = serializers.CharField()
    invite = serializers.CharField(help_text="The invite code (https://whatsapp.com/channel/<invite>).")
    role = serializers.ChoiceField(choices=Newsletter.Role.choices)


class ChannelListSerializer(serializers.Serializer):
    data = ChannelSerializer(many=True)


class ChannelInput(SessionInput):
    jid = serializers.RegexField(JID, required=False, help_text="`<digits>@newsletter`")
    invite = serializers.CharField(max_length=200, required=False, help_text="code or link")

    def validate(self, attrs: dict) -> dict:
        attrs = {**attrs, "jid": attrs.get("jid", ""), "invite": attrs.get("invite", "")}
        if bool(attrs["jid"]) == bool(attrs["invite"]):
            raise serializers.ValidationError("Give exactly one of `jid` or `invite`.")
        return attrs


class ChannelsApi(NoRequestTransaction, DirectoryView):
    """`GET`: the channels the session owns or follows, owned first (viewer; asked of the engine).
    `POST`: create a channel the session owns (operator)."""

    @extend_schema_serializer(component_name="ChannelCreateInput")
    class InputSerializer(SessionInput):
        name = serializers.CharField(max_length=100)
        description = serializers.CharField(max_length=2048, required=False, default="", allow_blank=True)

    def get_permissions(self) -> list:
        return [IsViewer()] if self.request.method == "GET" else [IsOperator()]

    @extend_schema(parameters=[SESSION_QUERY], responses=ChannelListSerializer, operation_id="channels_list")
    def get(self, request: Request) -> Response:
        rows = services.newsletter_list(session=self.query_session(request))
        return Response({"data": ChannelSerializer(rows, many=True).data})

    @extend_schema(
        request=InputSerializer, responses={201: ChannelSerializer}, operation_id="channels_create"
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        session = self.session(values["sessionId"])
        row = services.newsletter_create(
            session=session, name=values["name"], description=values["description"]
        )
        return Response(ChannelSerializer(row).data, status=201)


class ChannelFollowApi(SendView):
    """Follow a channel by `jid` or `invite` (code or link); 404 CHANNEL_NOT_FOUND when there is none."""

    @extend_schema(request=ChannelInput, responses=ChannelSerializer, operation_id="channels_follow")
    def post(self, request: Request) -> Response:
        session, data = self.validated(ChannelInput)
        row = services.newsletter_follow(session=session, jid=data["jid"], invite=data["invite"])
        return Response(ChannelSerializer(row).data)


class ChannelUnfollowApi(SendView):
    """Stop following a channel (`jid`; an owner cannot: 403)."""

    @extend_schema_serializer(component_name="ChannelUnfollowInput")
    class InputSerializer(SessionInput):
        jid = serializers.RegexField(JID, help_text="`<digits>@newsletter`")

    @extend_schema(request=InputSerializer, responses=SuccessSerializer, operation_id="channels_unfollow")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.newsletter_unfollow(session=session, jid=data["jid"])
        return Response({"success": True})


class ChannelMessagesApi(DirectoryView):
    """A channel's posts in the history, newest first: the session's own (owned channels) and what
    followed channels posted (`message` events of the channel's JID)."""

    reaches_engine = False

    @extend_schema_serializer(component_name="ChannelMessageList")
    class OutputSerializer(serializers.Serializer):
        data = MessageOutputSerializer(many=True)
        meta = MetaSerializer()

    @extend_schema(
        parameters=[
            SESSION_QUERY,
            OpenApiParameter("jid", OpenApiTypes.STR, required=True, description="`<digits>@newsletter`"),
            PaginationQuerySerializer,
        ],
        responses=OutputSerializer,
        operation_id="channels_messages",
    )
    def get(self, request: Request) -> Response:
        jid = request.query_params.get("jid", "").strip()
        if not re.fullmatch(JID, jid):
            raise ValidationFailed(f"jid: a channel's JID, <digits>@{NEWSLETTER_SUFFIX}.")
        session = self.query_session(request)
        return self.page(
            request, services.newsletter_messages(session=session, jid=jid), MessageOutputSerializer
        )
