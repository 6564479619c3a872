"""Meta's webhook bodies → Ponte's typed events (messaging.engines.events).

WhatsApp Cloud posts `entry[].changes[].value` with `messages[]`, `statuses[]` and `contacts[]`;
Messenger and Instagram post `entry[].messaging[]` items (`message`, `message_edit`, `reaction`,
`postback`, `read`, `delivery`). Each item becomes one `Inbound`: the typed event, when the channel
says it happened (ms), and for a customer's own message the time that opens the 24-hour window. Items
Ponte does not know are skipped (logged), never refused: Meta would retry the whole body. The body
comes cleaned of what JSON cannot store (core.signed_json); here a field of the wrong type or out of
range is dropped (a timestamp: the time of arrival stands in for it), and an item whose identifiers
are longer than the history can hold is skipped, logged.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from messaging.addressing import user_suffix
from messaging.channels import WHATSAPP_CLOUD
from messaging.engines.events import (
    Card,
    EngineEvent,
    ListResponseRef,
    Location,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    QuotedRef,
    Reaction,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Inbound:
    event: EngineEvent
    event_ms: int
    customer_ms: int = 0  # a customer's message: when it was sent (opens the window)


def jid(user_id: Any) -> str:
    return f"{user_id}@{user_suffix()}"


# Identifiers (message ids, JIDs) longer than the message history's columns.
MAX_ID_LENGTH = 100
# The latest second a datetime can hold (9999-12-31T23:59:59Z).
_MAX_SECONDS = 253_402_300_799


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and (len(value) > 20 or not value.strip().lstrip("-").isdigit()):
        return 0
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0


def _timestamp(value: Any, *, scale: int = 1) -> int:
    """A time in seconds (`scale` 1000: milliseconds), or 0 when it is not one a datetime can hold."""
    number = _int(value)
    if not 0 <= number <= _MAX_SECONDS * scale:
        logger.warning("Channel webhook timestamp %r out of range dropped", str(value)[:40])
        return 0
    return number


def _now_ms() -> int:
    # A customer's message whose time was dropped opens the window when it arrives.
    return int(time.time() * 1000)


def _float(value: Any) -> float:
    try:
        number = float(value) if isinstance(value, int | float | str) and not isinstance(value, bool) else 0.0
    except (ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# --- WhatsApp Cloud -----------------------------------------------------------------------------------

_CLOUD_MEDIA = ("image", "video", "audio", "document", "sticker")


def _cloud_message(item: dict[str, Any], names: dict[str, str]) -> MessageEvent | None:
    kind = str(item.get("type") or "")
    base = _cloud_base(item, names)
    body = _dict(item.get(kind))
    if kind == "text":
        return MessageEvent(**base, text=str(body.get("body") or ""))
    if kind in _CLOUD_MEDIA:
        return _cloud_media(base, kind, body)
    if kind == "location":
        return MessageEvent(**base, type="location", location=_cloud_location(body))
    if kind == "contacts":
        return MessageEvent(**base, type="contacts", contacts=_cloud_cards(item))
    if kind == "reaction":
        reaction = Reaction(message_id=str(body.get("message_id") or ""), emoji=str(body.get("emoji") or ""))
        return MessageEvent(**base, type="reaction", reaction=reaction)
    if kind == "interactive" or kind == "button":
        return _cloud_reply(base, kind, body)
    logger.info("WhatsApp Cloud message type %r skipped", kind)
    return None


def _cloud_base(item: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The fields every kind of message carries: id, chat, sender, time and the quoted message."""
    sender = str(item.get("from") or "")
    base: dict[str, Any] = {
        "id": str(item.get("id") or ""),
        "chat_jid": jid(sender),
        "sender": jid(sender),
        "push_name": names.get(sender, ""),
        "timestamp": _timestamp(item.get("timestamp")),
    }
    context = _dict(item.get("context"))
    if context.get("id"):
        base["quoted"] = QuotedRef(
            message_id=str(context["id"]), participant=jid(context.get("from") or sender)
        )
    if context.get("forwarded") or context.get("frequently_forwarded"):
        base["forwarded"] = True
    return base


def _cloud_media(base: dict[str, Any], kind: str, body: dict[str, Any]) -> MessageEvent:
    return MessageEvent(
        **base,
        type=kind,
        media_id=str(body.get("id") or ""),
        mime_type=str(body.get("mime_type") or "") or None,
        sha256=str(body.get("sha256") or "") or None,
        caption=_str_or_none(body.get("caption")),
        file_name=_str_or_none(body.get("filename")),
        voice=bool(body.get("voice")) if kind == "audio" else None,
        animated=bool(body.get("animated")) if kind == "sticker" else None,
    )


def _cloud_location(body: dict[str, Any]) -> Location:
    return Location(
        latitude=_float(body.get("latitude")),
        longitude=_float(body.get("longitude")),
        name=str(body.get("name") or ""),
        address=str(body.get("address") or ""),
    )


def _cloud_cards(item: dict[str, Any]) -> tuple[Card, ...]:
    cards = []
    for contact in map(_dict, _list(item.get("contacts"))):
        phones = _list(contact.get("phones"))
        cards.append(
            Card(
                display_name=str(_dict(contact.get("name")).get("formatted_name") or ""),
                phone_number=str(_dict(phones[0]).get("wa_id") or "") if phones else "",
            )
        )
    return tuple(cards)


def _cloud_reply(base: dict[str, Any], kind: str, body: dict[str, Any]) -> MessageEvent:
    """A tap on an interactive button or list row, or on a template's quick-reply button."""
    reply = _dict(body.get("button_reply") or body.get("list_reply"))
    if kind == "button":  # a template's quick-reply button
        reply = {"id": body.get("payload"), "title": body.get("text")}
    if body.get("type") == "list_reply":  # a row of an interactive list: Ponte's `list_response`
        choice = ListResponseRef(
            row_id=str(reply.get("id") or ""),
            title=str(reply.get("title") or ""),
            description=str(reply.get("description") or ""),
        )
        return MessageEvent(**base, type="list_response", text=choice.title, list_response=choice)
    return MessageEvent(
        **base,
        type="button_reply",
        selected_id=str(reply.get("id") or ""),
        selected_title=str(reply.get("title") or ""),
    )


_CLOUD_STATUSES = {"sent", "delivered", "read", "failed"}


def _cloud_status(item: dict[str, Any]) -> MessageAckEvent | None:
    status = str(item.get("status") or "")
    if status not in _CLOUD_STATUSES:
        return None
    errors = _list(item.get("errors"))
    error = _dict(errors[0]) if errors else {}
    return MessageAckEvent(
        message_id=str(item.get("id") or ""),
        chat_jid=jid(item.get("recipient_id") or ""),
        status=status,
        recipient=jid(item.get("recipient_id") or ""),
        error=f"{error.get('code')}: {error.get('title') or error.get('message')}" if error else None,
        timestamp=_timestamp(item.get("timestamp")) or None,
    )


def _cloud(body: dict[str, Any]) -> Iterator[Inbound]:
    for entry in _list(body.get("entry")):
        for change in _list(_dict(entry).get("changes")):
            value = _dict(_dict(change).get("value"))
            names = {
                str(_dict(c).get("wa_id")): str(_dict(_dict(c).get("profile")).get("name") or "")
                for c in _list(value.get("contacts"))
            }
            for item in _list(value.get("messages")):
                event = _cloud_message(_dict(item), names)
                if event is not None:
                    ms = event.timestamp * 1000
                    yield Inbound(event, ms, customer_ms=ms or _now_ms())
            for item in _list(value.get("statuses")):
                ack = _cloud_status(_dict(item))
                if ack is not None:
                    yield Inbound(ack, (ack.timestamp or 0) * 1000)


# --- Messenger and Instagram -------------------------------------------------------------------------

_PAGE_KINDS = {"image": "image", "video": "video", "audio": "audio", "file": "document"}


def _page_message(item: dict[str, Any], message: dict[str, Any], base: dict[str, Any]) -> MessageEvent | None:
    echo = bool(message.get("is_echo"))
    base = {**base, "id": str(message.get("mid") or ""), "from_me": echo}
    if echo:  # sent by the page: the conversation is the recipient's
        base["chat_jid"] = jid(_dict(item.get("recipient")).get("id"))
    reply_to = _dict(message.get("reply_to"))
    if reply_to.get("mid"):
        base["quoted"] = QuotedRef(message_id=str(reply_to["mid"]))
    quick = _dict(message.get("quick_reply"))
    if quick:
        return MessageEvent(
            **base,
            type="button_reply",
            selected_id=str(quick.get("payload") or ""),
            selected_title=str(message.get("text") or ""),
        )
    attachments = [_dict(a) for a in _list(message.get("attachments"))]
    if message.get("sticker_id") or any(_dict(a.get("payload")).get("sticker_id") for a in attachments):
        payload = _dict(attachments[0].get("payload")) if attachments else {}
        return MessageEvent(
            **base,
            type="sticker",
            media_url=str(payload.get("url") or "") or None,
            sticker_id=str(message.get("sticker_id") or payload.get("sticker_id") or ""),
            mime_type="image/png",
            animated=False,
        )
    if attachments:
        attachment = attachments[0]
        payload = _dict(attachment.get("payload"))
        kind = str(attachment.get("type") or "")
        if kind == "location":
            coordinates = _dict(payload.get("coordinates"))
            place = Location(
                latitude=_float(coordinates.get("lat")), longitude=_float(coordinates.get("long"))
            )
            return MessageEvent(**base, type="location", location=place)
        if kind in _PAGE_KINDS:
            return MessageEvent(
                **base,
                type=_PAGE_KINDS[kind],
                media_url=str(payload.get("url") or "") or None,
                caption=str(message.get("text") or "") or None,
            )
        logger.info("Page attachment type %r skipped", kind)
        return None
    return MessageEvent(**base, text=str(message.get("text") or ""))


def _page_edit(edit: dict[str, Any], sender: str, ms: int) -> MessageEditedEvent:
    """The customer edited a message (`message_edits` field): its `mid`, the new text. A page's own
    messages cannot be edited (the Send API has no edit), so an edit is always the customer's."""
    at = datetime.fromtimestamp(ms / 1000, tz=UTC) if ms else datetime.now(tz=UTC)
    return MessageEditedEvent(
        message_id=str(edit["mid"]),
        chat_jid=jid(sender),
        text=str(edit.get("text") or ""),
        edited_at=at.isoformat(),
        from_me=False,
        sender=jid(sender),
    )


def _page_item(item: dict[str, Any]) -> Iterator[Inbound]:
    sender = str(_dict(item.get("sender")).get("id") or "")
    ms = _timestamp(item.get("timestamp"), scale=1000)
    base: dict[str, Any] = {"chat_jid": jid(sender), "sender": jid(sender), "timestamp": ms // 1000}
    if "message" in item:
        event = _page_message(item, _dict(item["message"]), base)
        if event is not None:
            yield Inbound(event, ms, customer_ms=0 if event.from_me else ms or _now_ms())
    elif "message_edit" in item:
        edit = _dict(item["message_edit"])
        if edit.get("mid"):
            yield Inbound(_page_edit(edit, sender, ms), ms)
    elif "reaction" in item:
        reaction = _dict(item["reaction"])
        emoji = "" if reaction.get("action") == "unreact" else str(reaction.get("emoji") or "")
        target = Reaction(message_id=str(reaction.get("mid") or ""), emoji=emoji)
        yield Inbound(
            MessageEvent(**base, id=f"reaction-{target.message_id}-{ms}", type="reaction", reaction=target),
            ms,
        )
    elif "postback" in item:
        postback = _dict(item["postback"])
        event = MessageEvent(
            **base,
            id=str(postback.get("mid") or f"postback-{sender}-{ms}"),
            type="button_reply",
            selected_id=str(postback.get("payload") or ""),
            selected_title=str(postback.get("title") or ""),
        )
        yield Inbound(event, ms, customer_ms=ms or _now_ms())
    elif "delivery" in item:
        for mid in _list(_dict(item["delivery"]).get("mids")):
            ack = MessageAckEvent(
                message_id=str(mid),
                chat_jid=jid(sender),
                status="delivered",
                recipient=jid(sender),
                timestamp=ms // 1000,
            )
            yield Inbound(ack, ms)
    elif "read" in item:
        # A watermark: everything the page sent before it is read (the services find those messages).
        watermark = _timestamp(_dict(item["read"]).get("watermark"), scale=1000) or ms
        ack = MessageAckEvent(
            message_id="",
            chat_jid=jid(sender),
            status="read",
            recipient=jid(sender),
            timestamp=watermark // 1000,
        )
        yield Inbound(ack, ms)
    else:
        logger.info("Page webhook item without a known kind skipped: %s", sorted(item))


def _page(body: dict[str, Any]) -> Iterator[Inbound]:
    for entry in _list(body.get("entry")):
        for item in _list(_dict(entry).get("messaging")):
            yield from _page_item(_dict(item))


def _fits(item: Inbound) -> bool:
    event = item.event
    names = (event.id, event.chat_jid, event.sender) if isinstance(event, MessageEvent) else ()
    if isinstance(event, MessageAckEvent | MessageEditedEvent):
        names = (event.message_id, event.chat_jid)
    if all(len(name) <= MAX_ID_LENGTH for name in names):
        return True
    logger.warning(
        "Channel webhook %s with an identifier over %d characters skipped", event.name, MAX_ID_LENGTH
    )
    return False


def parse(provider: str, body: Any) -> list[Inbound]:
    """Every typed event in one webhook body, in the body's order."""
    body = _dict(body)
    return [item for item in (_cloud(body) if provider == WHATSAPP_CLOUD else _page(body)) if _fits(item)]
