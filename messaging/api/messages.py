"""Messages under /api/messages: send text, reaction, vcard(s), location, buttons, delete, history."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsViewer
from core.errors import ValidationFailed
from messaging.addressing import normalize_number
from messaging.api.bases import MessageView, PagedListView, RecipientField, SendView, SessionInput
from messaging.api.common import MetaSerializer, PaginationQuerySerializer, envelope
from messaging.api.link_preview import LinkPreviewField
from messaging.api.mentions import MentionsInput, mentions_input
from messaging.filters import MessageFilterSet
from messaging.models import Message
from messaging.selectors import message_history
from messaging.services import message_actions
from messaging.services import messages as services
from messaging.services.link_preview import message_send_text_preview
from messaging.values import Button, ContactCard

MAX_TEXT = 4096
MAX_VCARDS = 50
MAX_BUTTONS = 3
# A reaction is an emoji, never a word: letters, digits and spaces are refused upfront.
_NOT_EMOJI = re.compile(r"[A-Za-z0-9\s]")


class ContactNumberField(serializers.CharField):
    """A contact card's number: digits with country code ('+', spaces, dashes, brackets ignored)."""

    def to_internal_value(self, data: Any) -> str:
        raw = re.sub(r"[\s+()\-.]", "", super().to_internal_value(data))
        return normalize_number(raw, field=self.field_name)


@extend_schema_serializer(component_name="QuotedMessage")
class QuotedSerializer(serializers.Serializer):
    messageId = serializers.CharField(max_length=100)
    participant = RecipientField(allow_group=False, required=False)


@extend_schema_serializer(component_name="MessageSent")
class SentSerializer(serializers.Serializer):
    messageId = serializers.CharField()
    status = serializers.CharField()
    to = serializers.CharField()
    timestamp = serializers.DateTimeField()


def sent_body(message: Message, **extra: Any) -> dict[str, Any]:
    return {
        "messageId": message.message_id,
        "status": message.status,
        "to": message.chat,
        "timestamp": message.timestamp.isoformat(),
        **extra,
    }


def quoted_input(data: dict | None) -> services.QuotedInput | None:
    """The `quoted` object of a send's body as the services take it (also used by the media route)."""
    if not data:
        return None
    return services.QuotedInput(message_id=data["messageId"], participant=data.get("participant", ""))


class MessageSendApi(SendView):
    """Send a text message, optionally quoting (replying to) a message of the same chat."""

    @extend_schema_serializer(component_name="MessageSendInput")
    class InputSerializer(MentionsInput, SessionInput):
        to = RecipientField()
        text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)
        quoted = QuotedSerializer(required=False, allow_null=True)
        linkPreview = LinkPreviewField(
            required=False,
            help_text="`true`: Ponte reads the first link's Open Graph tags (no preview if it cannot); or "
            "the preview `{url, title, description?, thumbnailBase64?}`, whose `url` is a link of the text.",
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            _read, given = attrs.get("linkPreview") or (False, None)
            if given is not None and given.url not in attrs["text"]:
                raise serializers.ValidationError({"linkPreview": "`url` must be a link of the text."})
            return attrs

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_send")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        read, given = data.get("linkPreview") or (False, None)
        message = message_send_text_preview(
            session=session,
            to=data["to"],
            text=data["text"],
            preview=given,
            read=read,
            quoted=quoted_input(data.get("quoted")),
            mentions=mentions_input(session, data["to"], data),
            savepoint=False,
        )
        return Response(sent_body(message))


class MessageReactionApi(MessageView):
    """React to a message with an emoji; an empty string removes the reaction (`reaction` null)."""

    #: The engine is called (the Graph API on official channels): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="MessageReactionInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        messageId = serializers.CharField(max_length=100)
        reaction = serializers.CharField(
            max_length=16, allow_blank=True, trim_whitespace=False, required=False, help_text="The emoji."
        )
        text = serializers.CharField(
            max_length=16,
            allow_blank=True,
            trim_whitespace=False,
            required=False,
            help_text="Same as `reaction` (official channels' spelling, with `provider`).",
        )
        provider = serializers.ChoiceField(
            choices=["whatsapp", "whatsapp_cloud", "messenger", "instagram"],
            required=False,
            help_text="When given, must be the session's provider.",
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if "reaction" not in attrs and "text" not in attrs:
                raise serializers.ValidationError({"reaction": "required (or `text`): an emoji, or empty."})
            value = attrs["reaction"] if "reaction" in attrs else attrs["text"]
            if value and _NOT_EMOJI.search(value):
                field = "reaction" if "reaction" in attrs else "text"
                raise serializers.ValidationError(
                    {field: "must be an emoji (or empty to remove the reaction)."}
                )
            attrs["reaction"] = value
            return attrs

    @extend_schema_serializer(component_name="MessageReactionOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        messageId = serializers.CharField()
        reaction = serializers.CharField(allow_null=True)

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="messages_reaction")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        if data.get("provider") and data["provider"] != session.provider:
            raise ValidationFailed(
                f"provider: {data['provider']!r} is not this session's provider ({session.provider!r})."
            )
        reaction = message_actions.message_react(
            session=session, chat=data["to"], message_id=data["messageId"], emoji=data["reaction"]
        )
        return Response({"success": True, "messageId": data["messageId"], "reaction": reaction})


@extend_schema_serializer(component_name="ContactCard")
class CardSerializer(serializers.Serializer):
    displayName = serializers.CharField(max_length=100)
    phoneNumber = ContactNumberField(max_length=30)
    organization = serializers.CharField(max_length=100, required=False, default="", allow_blank=True)


def _card(data: dict[str, Any]) -> ContactCard:
    return ContactCard(data["displayName"], data["phoneNumber"], data.get("organization", ""))


class MessageVcardApi(SendView):
    """Send one contact card."""

    @extend_schema_serializer(component_name="MessageVcardInput")
    class InputSerializer(SessionInput, CardSerializer):
        to = RecipientField()

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_vcard")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = services.message_send_contact(
            session=session, to=data["to"], card=_card(data), savepoint=False
        )
        return Response(sent_body(message))


class MessageVcardsApi(SendView):
    """Send one message holding several contact cards (1 to 50)."""

    @extend_schema_serializer(component_name="MessageVcardsInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        displayName = serializers.CharField(max_length=100)
        contacts = serializers.ListField(child=CardSerializer(), min_length=1, max_length=MAX_VCARDS)

    @extend_schema_serializer(component_name="MessageVcardsOutput")
    class OutputSerializer(SentSerializer):
        count = serializers.IntegerField(help_text="Number of cards in the message.")

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="messages_vcards")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        cards = [_card(c) for c in data["contacts"]]
        message = services.message_send_contacts(
            session=session, to=data["to"], display_name=data["displayName"], cards=cards, savepoint=False
        )
        return Response(sent_body(message, count=len(cards)))


class MessageLocationApi(SendView):
    """Send a location (latitude -90..90, longitude -180..180)."""

    @extend_schema_serializer(component_name="MessageLocationInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        latitude = serializers.FloatField(min_value=-90, max_value=90)
        longitude = serializers.FloatField(min_value=-180, max_value=180)
        name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
        address = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
        quoted = QuotedSerializer(required=False, allow_null=True)

        def to_internal_value(self, data: Any) -> dict[str, Any]:
            # JSON strings such as "10.5" and booleans are not coordinates.
            if isinstance(data, dict):
                for field in ("latitude", "longitude"):
                    value = data.get(field)
                    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
                        raise ValidationFailed(f"{field}: must be a number.")
            return super().to_internal_value(data)

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_location")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = services.message_send_location(
            session=session,
            to=data["to"],
            latitude=data["latitude"],
            longitude=data["longitude"],
            name=data["name"],
            address=data["address"],
            quoted=quoted_input(data.get("quoted")),
            savepoint=False,
        )
        return Response(sent_body(message))


@extend_schema_serializer(component_name="MessageButton")
class ButtonSerializer(serializers.Serializer):
    buttonId = serializers.CharField(max_length=256)
    buttonText = serializers.CharField(max_length=20)


class MessageButtonsApi(SendView):
    """Send a text with 1 to 3 reply buttons (best effort: some clients do not show buttons)."""

    @extend_schema_serializer(component_name="MessageButtonsInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        text = serializers.CharField(max_length=1024)
        buttons = serializers.ListField(child=ButtonSerializer(), min_length=1, max_length=MAX_BUTTONS)
        footer = serializers.CharField(max_length=60, required=False, default="", allow_blank=True)

        def validate_buttons(self, value: list[dict]) -> list[dict]:
            ids = [b["buttonId"] for b in value]
            if len(set(ids)) != len(ids):
                raise serializers.ValidationError("buttonId values must be unique.")
            return value

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_buttons")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        buttons = [Button(b["buttonId"], b["buttonText"]) for b in data["buttons"]]
        message = services.message_send_buttons(
            session=session,
            to=data["to"],
            text=data["text"],
            buttons=buttons,
            footer=data["footer"],
            savepoint=False,
        )
        return Response(sent_body(message))


class MessageDeleteApi(MessageView):
    """Delete a message for everyone (own messages; others' in a group as a group admin), within the
    deletion window."""

    #: The engine is called (an engine process over the bus): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="MessageDeleteInput")
    class InputSerializer(SessionInput):
        remoteJid = RecipientField()
        messageId = serializers.CharField(max_length=100)
        fromMe = serializers.BooleanField()

    @extend_schema_serializer(component_name="MessageDeleteOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        messageId = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="messages_delete")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message_actions.message_delete(
            session=session, chat=data["remoteJid"], message_id=data["messageId"], from_me=data["fromMe"]
        )
        return Response({"success": True, "messageId": data["messageId"]})


@extend_schema_serializer(component_name="MessageRecord")
class MessageOutputSerializer(serializers.Serializer):
    messageId = serializers.CharField(source="message_id")
    chat = serializers.CharField()
    sender = serializers.CharField()
    pushName = serializers.CharField(source="push_name")
    fromMe = serializers.BooleanField(source="from_me")
    direction = serializers.CharField()
    type = serializers.CharField()
    content = serializers.DictField()
    status = serializers.CharField()
    timestamp = serializers.DateTimeField()
    reactions = serializers.DictField()
    edited = serializers.SerializerMethodField()
    editedAt = serializers.DateTimeField(source="edited_at", allow_null=True)
    forwarded = serializers.SerializerMethodField()

    def get_edited(self, message: Message) -> bool:
        return message.edited_at is not None

    def get_forwarded(self, message: Message) -> bool:
        return bool(message.content.get("forwarded"))


class MessageListApi(PagedListView):
    """Message history of a session (newest first), optionally of one chat. Viewers may read it."""

    permission_classes = [IsViewer]

    filterset_class = MessageFilterSet

    @extend_schema_serializer(component_name="MessageList")
    class OutputSerializer(serializers.Serializer):
        data = MessageOutputSerializer(many=True)
        meta = MetaSerializer()

    @extend_schema(
        parameters=[PaginationQuerySerializer], responses=OutputSerializer, operation_id="messages_list"
    )
    def get(self, request: Request) -> Response:
        messages = self.filter_queryset(message_history())
        return Response(envelope(self.page_of(messages), MessageOutputSerializer))
