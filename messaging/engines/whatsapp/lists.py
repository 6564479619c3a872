"""List messages, forwards and link previews on WhatsApp, both ways, in neonize's own protobuf types.

Out: a list is a `ListMessage` (SINGLE_SELECT, its sections of rows); a text with a preview is an
`extendedTextMessage` whose `matchedText` is the link, with `title`, `description` and the thumbnail as
`JPEGThumbnail`; a forward is the message of its kind with `contextInfo.isForwarded` (and a forwarding
score of 1). The inbound side is messaging.engines.whatsapp.lists_inbound."""

from __future__ import annotations

from typing import Any

from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import VoteType

from messaging.engines.base import ForwardContent, LinkPreview, ListMessage, Quoted, Sent
from messaging.engines.whatsapp.outbound import context_info, media_message, sent_of, to_jid

_POLL_FIELDS = ("pollCreationMessage", "pollCreationMessageV2", "pollCreationMessageV3")


def list_message(message: ListMessage) -> Any:
    sections = [
        wa.ListMessage.Section(
            title=section.title,
            rows=[
                wa.ListMessage.Row(rowID=row.row_id, title=row.title, description=row.description)
                for row in section.rows
            ],
        )
        for section in message.sections
    ]
    return wa.Message(
        listMessage=wa.ListMessage(
            title=message.title,
            description=message.text,
            buttonText=message.button_text,
            footerText=message.footer,
            listType=wa.ListMessage.ListType.SINGLE_SELECT,
            sections=sections,
        )
    )


def send_list(client: Any, to: str, message: ListMessage) -> Sent:
    return sent_of(client.send_message(to_jid(to), list_message(message)), to)


def preview_message(
    text: str, preview: LinkPreview, quoted: Quoted | None = None, mentions: tuple[str, ...] = ()
) -> Any:
    extended = wa.ExtendedTextMessage(
        text=text,
        matchedText=preview.url,
        title=preview.title,
        description=preview.description,
        previewType=wa.ExtendedTextMessage.PreviewType.NONE,
    )
    if preview.thumbnail:
        extended.JPEGThumbnail = preview.thumbnail
    if quoted is not None or mentions:
        extended.contextInfo.CopyFrom(context_info(quoted, mentions))
    return wa.Message(extendedTextMessage=extended)


def send_text_preview(
    client: Any,
    to: str,
    text: str,
    preview: LinkPreview,
    quoted: Quoted | None,
    mentions: tuple[str, ...] = (),
) -> Sent:
    return sent_of(client.send_message(to_jid(to), preview_message(text, preview, quoted, mentions)), to)


def _forwarded_context() -> Any:
    return wa.ContextInfo(isForwarded=True, forwardingScore=1)


def forward_message(client: Any, content: ForwardContent) -> Any:
    """The message of `content`'s kind, marked forwarded (media uploaded, polls built by the library)."""
    if content.type == "media" and content.media is not None:
        return media_message(client, content.media, _forwarded_context())
    if content.type == "location":
        location = wa.LocationMessage(
            degreesLatitude=content.latitude,
            degreesLongitude=content.longitude,
            name=content.name,
            address=content.address,
            contextInfo=_forwarded_context(),
        )
        return wa.Message(locationMessage=location)
    if content.type == "contacts":
        cards = [wa.ContactMessage(displayName=c.display_name, vcard=c.vcard) for c in content.cards]
        if len(cards) == 1:
            cards[0].contextInfo.CopyFrom(_forwarded_context())
            return wa.Message(contactMessage=cards[0])
        array = wa.ContactsArrayMessage(
            displayName=content.display_name, contacts=cards, contextInfo=_forwarded_context()
        )
        return wa.Message(contactsArrayMessage=array)
    if content.type == "poll":
        kind = VoteType.SINGLE if content.selectable_count == 1 else VoteType.MULTIPLE
        message = client.build_poll_vote_creation(content.name, list(content.options), kind)
        for field in _POLL_FIELDS:
            if message.HasField(field):
                poll = getattr(message, field)
                poll.selectableOptionsCount = content.selectable_count
                poll.contextInfo.CopyFrom(_forwarded_context())
        return message
    text = wa.ExtendedTextMessage(text=content.text, contextInfo=_forwarded_context())
    return wa.Message(extendedTextMessage=text)


def send_forward(client: Any, to: str, content: ForwardContent) -> Sent:
    return sent_of(client.send_message(to_jid(to), forward_message(client, content)), to)
