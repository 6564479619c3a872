"""The `message` event of the sandbox's inbound route: one serializer per kind of `type`."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django.conf import settings
from rest_framework import serializers

from messaging.addressing import is_group, is_lid, is_newsletter, normalize_jid
from messaging.api.sandbox_fields import (
    ContactNumber,
    Flag,
    InboundSerializer,
    Jid,
    Named,
    Number,
    OptionalText,
    Text,
    optional_text,
)

MESSAGE_TYPES = (
    "text",
    "image",
    "video",
    "audio",
    "voice",
    "document",
    "sticker",
    "location",
    "contacts",
    "reaction",
    "list_response",
)
# Why a connection drops: the reasons the WhatsApp driver reports too.


class MessageInbound(InboundSerializer):
    """The fields every message has. The other side sends it (`from`, and `chat` for a group), or the
    session's own phone does (`fromMe`: the chat is `chat`, `to` or `from`, whichever is given)."""

    event = Named("message")
    type = Named(*MESSAGE_TYPES, default="text")
    fromMe = Flag(required=False, default=False)
    from_ = Text(required=False, default="", allow_blank=True, max_length=100)
    chat = Text(required=False, default="", allow_blank=True, max_length=100)
    to = Text(required=False, default="", allow_blank=True, max_length=100)
    pushName = optional_text(100)
    text = optional_text(4096)
    messageId = OptionalText(max_length=100)
    isHistory = Flag(required=False, help_text="A message of the history sync (sent to `webhookHistory`).")
    forwarded = Flag(required=False, help_text="The message was forwarded from another chat.")
    mentions = serializers.ListField(
        child=Jid(allow_group=False),
        required=False,
        max_length=1024,
        help_text="The people the message mentions (numbers or JIDs).",
    )
    senderPn = OptionalText(
        max_length=100,
        help_text="With `from` a linked id (`<digits>@lid`): the sender's phone number or JID, as WhatsApp "
        "gives it beside the linked id (Ponte learns the pair).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        type_ = attrs["type"]
        data: dict[str, Any] = {"type": "audio" if type_ == "voice" else type_, "fromMe": attrs["fromMe"]}
        data.update(_message_parties(attrs))
        data["pushName"] = attrs["pushName"]
        data["text"] = attrs["text"]
        if attrs.get("messageId"):
            data["messageId"] = attrs["messageId"]
        data.update(self.kind_data(attrs))
        if "isHistory" in attrs:
            data["isHistory"] = attrs["isHistory"]
        if attrs.get("forwarded"):
            data["forwarded"] = True
        if "senderPn" in attrs:
            data["senderPn"] = _sender_pn(attrs)
        if attrs.get("mentions"):
            data["mentions"] = list(dict.fromkeys(attrs["mentions"]))
        return data

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The fields of this kind of message."""
        return {}


def _message_parties(attrs: dict[str, Any]) -> dict[str, str]:
    if attrs["fromMe"]:
        chat = _jid(attrs["chat"] or attrs["to"] or attrs["from"], "chat")
        return {"chat": chat, "from": chat}
    parties = {"from": _jid(attrs["from"], "from", allow_group=False)}
    if attrs["chat"]:
        parties["chat"] = _jid(attrs["chat"], "chat")
        if not (is_group(parties["chat"]) or is_newsletter(parties["chat"])):
            raise serializers.ValidationError(
                {"chat": "only a group JID (a message in a group) or a channel's (a channel's post)."}
            )
    return parties


def _sender_pn(attrs: dict[str, Any]) -> str:
    if attrs["fromMe"] or not is_lid(attrs["from"]):
        raise serializers.ValidationError({"senderPn": "only with `from` a linked id (<digits>@lid)."})
    pn = normalize_jid(attrs["senderPn"], allow_group=False, field="senderPn")
    if is_lid(pn):
        raise serializers.ValidationError({"senderPn": "a phone number or its JID, not a linked id."})
    return pn


def _jid(value: str, field: str, *, allow_group: bool = True) -> str:
    if not value:
        raise serializers.ValidationError({field: Jid.default_error_messages["required"]})
    return normalize_jid(value, allow_group=allow_group, field=field)


class InboundLinkPreview(serializers.Serializer):
    url = serializers.URLField(max_length=2000)
    title = Text(max_length=200)
    description = optional_text(500)


class TextMessageInbound(MessageInbound):
    """A text message (with the preview WhatsApp shows for its link, `linkPreview`)."""

    type = Named("text", default="text")
    text = Text(max_length=4096)
    linkPreview = InboundLinkPreview(required=False)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {"linkPreview": dict(attrs["linkPreview"])} if attrs.get("linkPreview") else {}


class InboundMedia(serializers.Serializer):
    """The bytes "WhatsApp" delivers, stored by the engine."""

    base64 = Text()
    mimeType = Text(max_length=100)
    fileName = OptionalText(max_length=255)

    def validate_base64(self, value: str) -> bytes:
        max_bytes = settings.MESSAGING_MEDIA_MAX_BYTES
        if len(value) > max_bytes * 4 // 3 + 4:
            raise serializers.ValidationError(f"from 1 to {max_bytes} bytes.")
        try:
            content = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise serializers.ValidationError("not valid base64.") from None
        if not content or len(content) > max_bytes:
            raise serializers.ValidationError(f"from 1 to {max_bytes} bytes.")
        return content

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {"data": attrs.pop("base64"), **attrs}


class MediaMessageInbound(MessageInbound):
    """The bytes themselves (`media`), or a link to media kept elsewhere (`mediaUrl`, passed through
    as given)."""

    #: The flag this kind of media may carry (a voice note, an animated sticker, a view-once image).
    flag = ""
    media = InboundMedia(required=False)
    mediaUrl = Text(required=False, max_length=2000)
    mimeType = optional_text(100)
    caption = optional_text(4096)
    sha256 = OptionalText(max_length=100)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "media" in attrs:
            data: dict[str, Any] = {"media": attrs["media"]}
        elif "mediaUrl" in attrs:
            data = {"mediaUrl": attrs["mediaUrl"], "mimeType": attrs["mimeType"]}
        else:
            raise serializers.ValidationError({"mediaUrl": "required (or `media`, the bytes themselves)."})
        data["caption"] = attrs["caption"]
        if "sha256" in attrs:
            data["sha256"] = attrs["sha256"]
        if self.flag in attrs:
            data[self.flag] = attrs[self.flag]
        return data


class VisualMessageInbound(MediaMessageInbound):
    """An image or a video (`viewOnce`: it can be seen once)."""

    type = Named("image", "video")
    flag = "viewOnce"
    viewOnce = Flag(required=False)


class AudioMessageInbound(MediaMessageInbound):
    """`voice` is an audio message with `voice: true` (a voice note)."""

    type = Named("audio", "voice")
    flag = "voice"
    voice = Flag(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["type"] == "voice":
            attrs["voice"] = True
        return super().validate(attrs)


class StickerMessageInbound(MediaMessageInbound):
    """A sticker (`animated` or not)."""

    type = Named("sticker")
    flag = "animated"
    animated = Flag(required=False)


class DocumentMessageInbound(MediaMessageInbound):
    """A document, with its file name."""

    type = Named("document")
    fileName = optional_text(255)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {**super().kind_data(attrs), "fileName": attrs["fileName"]}


class LocationMessageInbound(MessageInbound):
    """A location pin."""

    type = Named("location")
    latitude = Number(min_value=-90, max_value=90)
    longitude = Number(min_value=-180, max_value=180)
    name = optional_text(200)
    address = optional_text(500)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        keys = ("latitude", "longitude", "name", "address")
        return {"location": {key: attrs[key] for key in keys}}


class InboundContactCard(serializers.Serializer):
    displayName = Text(max_length=100)
    phoneNumber = ContactNumber()


class ContactsMessageInbound(MessageInbound):
    """One or more contact cards."""

    type = Named("contacts")
    contacts = InboundContactCard(many=True, allow_empty=False)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {"contacts": [dict(card) for card in attrs["contacts"]]}


class ReactionMessageInbound(MessageInbound):
    """An emoji reaction to a message (an empty `emoji` removes it)."""

    type = Named("reaction")
    reactionTo = Text(max_length=100, help_text="The id of the message reacted to.")
    emoji = optional_text(16)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {"reaction": {"messageId": attrs["reactionTo"], "emoji": attrs["emoji"]}}


class InboundListResponse(serializers.Serializer):
    rowId = Text(max_length=200)
    title = Text(max_length=100)
    description = optional_text(100)


class ListResponseMessageInbound(MessageInbound):
    """The customer's choice in a list message (`listMessageId`: the list answered, if known)."""

    type = Named("list_response")
    listResponse = InboundListResponse()
    listMessageId = OptionalText(max_length=100)

    def kind_data(self, attrs: dict[str, Any]) -> dict[str, Any]:
        choice = dict(attrs["listResponse"])
        data: dict[str, Any] = {"listResponse": choice, "text": attrs["text"] or choice["title"]}
        if attrs.get("listMessageId"):
            data["quoted"] = {"messageId": attrs["listMessageId"]}
        return data


# The serializer of each `type`.
MESSAGE_SERIALIZERS: dict[str, type[MessageInbound]] = {
    "text": TextMessageInbound,
    "image": VisualMessageInbound,
    "video": VisualMessageInbound,
    "audio": AudioMessageInbound,
    "voice": AudioMessageInbound,
    "document": DocumentMessageInbound,
    "sticker": StickerMessageInbound,
    "location": LocationMessageInbound,
    "contacts": ContactsMessageInbound,
    "reaction": ReactionMessageInbound,
    "list_response": ListResponseMessageInbound,
}
