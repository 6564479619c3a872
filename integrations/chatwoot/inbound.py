"""Platform → customer: Chatwoot's webhooks received, recorded as jobs, carried through the session.

Received (`webhook_receive`): `message_created` of an agent (`outgoing` or `template`) — private notes
never reach the customer, and messages Ponte itself mirrored (`source_id` `WAID:…`) are echoes; typing
of an agent (`user.type == "user"`, not private). Each Chatwoot message is recorded once, however many
webhooks (account and inbox) deliver it. The payload arrives cleaned of what cannot be stored
(core.signed_json); a field of the wrong shape (an id that is no positive 64-bit number, an object
that is not one, a chat too long for the history) makes the event "ignored", never an error.

Carried (`agent_message_send`): the conversation is first marked read on the channel, then text,
attachments and replies go through the messaging services (any engine, official channels included: the
24-hour window and templates apply there). A refusal marks the Chatwoot message failed and adds a
private note with the reason; nothing is retried for it.
"""

from __future__ import annotations

import base64
import logging
from typing import Any
from urllib.parse import unquote, urlparse

from core.errors import ApplicationError, RateLimited, ServiceUnavailable
from integrations.chatwoot import jobs
from integrations.chatwoot.client import ChatwootError
from integrations.chatwoot.config import client_for
from integrations.chatwoot.models import ChatLink, ChatwootIntegration, MessageLink, MirrorJob
from messaging.addressing import normalize_jid
from messaging.errors import EngineUnavailable
from messaging.models import Message, Session
from messaging.services.chats import chat_mark_read, chat_presence
from messaging.services.media import message_send_media
from messaging.services.message_actions import message_delete
from messaging.services.messages import QuotedInput, message_send_text

logger = logging.getLogger(__name__)

AGENT_TYPES = {"outgoing", "template", 1, 3}
MAX_CHAT_LENGTH = 100  # MirrorJob.chat, Message.chat
_MAX_ID = 2**63 - 1
FILE_TYPES = {"image": "image", "video": "video", "audio": "audio", "file": "document"}
MAX_ATTACHMENT_BYTES = 40 * 1024 * 1024


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _id(value: Any) -> int | None:
    """A Chatwoot id (a positive 64-bit integer), or None when the value is not one."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 19):
        return None
    number = int(value)
    return number if 0 < number <= _MAX_ID else None


def _chat_of(integration: ChatwootIntegration, conversation: dict[str, Any]) -> str:
    conversation_id = _id(conversation.get("id"))
    if conversation_id is not None:
        link = ChatLink.objects.filter(integration=integration, conversation_id=conversation_id).first()
        if link is not None:
            return link.chat
    sender = _dict(_dict(conversation.get("meta")).get("sender"))
    if sender.get("identifier"):
        chat = str(sender["identifier"])
        return chat if len(chat) <= MAX_CHAT_LENGTH else ""
    phone = str(sender.get("phone_number") or "").lstrip("+")
    try:
        return normalize_jid(phone) if phone else ""
    except ApplicationError:
        return ""


def _agent_message(integration: ChatwootIntegration, payload: dict[str, Any]) -> str:
    message_type = payload.get("message_type")
    if payload.get("private") or not isinstance(message_type, str | int) or message_type not in AGENT_TYPES:
        return "ignored"  # private notes stay in Chatwoot; incoming ones are Ponte's own mirror
    message_id = _id(payload.get("id"))
    if message_id is None or str(payload.get("source_id") or "").startswith("WAID:"):
        return "ignored"
    if MessageLink.objects.filter(integration=integration, chatwoot_id=message_id).exists():
        return "ignored"
    chat = _chat_of(integration, _dict(payload.get("conversation")))
    if not chat:
        return "ignored"
    job = jobs.job_record(
        integration_id=integration.pk,
        direction=MirrorJob.Direction.TO_CUSTOMER,
        kind="agent_message",
        chat=chat,
        payload={**payload, "id": message_id},
        dedupe_key=f"cw-message:{message_id}",
    )
    return "queued" if job else "duplicate"


def _agent_delete(integration: ChatwootIntegration, payload: dict[str, Any]) -> str:
    message_id = _id(payload.get("id"))
    if message_id is None:
        return "ignored"
    if not MessageLink.objects.filter(integration=integration, chatwoot_id=message_id).exists():
        return "ignored"
    chat = _chat_of(integration, _dict(payload.get("conversation")))
    job = jobs.job_record(
        integration_id=integration.pk,
        direction=MirrorJob.Direction.TO_CUSTOMER,
        kind="agent_delete",
        chat=chat,
        payload={"id": message_id},
        dedupe_key=f"cw-delete:{message_id}",
    )
    return "queued" if job else "duplicate"


def webhook_receive(integration: ChatwootIntegration, payload: dict[str, Any]) -> str:
    """Record what an event asks for; what was done with it ("queued", "duplicate", "ignored")."""
    event = payload.get("event")
    if not integration.enabled or integration.inbox_id is None:
        return "ignored"  # paused: nothing is recorded
    if event == "message_created":
        return _agent_message(integration, payload)
    if event == "message_updated" and _dict(payload.get("content_attributes")).get("deleted"):
        return _agent_delete(integration, payload)
    if event in ("conversation_typing_on", "conversation_typing_off"):
        user = _dict(payload.get("user"))
        if user.get("type") != "user" or payload.get("is_private"):
            return "ignored"  # the contact's typing we pushed, echoed back; or a private note
        chat = _chat_of(integration, _dict(payload.get("conversation")))
        if not chat:
            return "ignored"
        jobs.job_record(
            integration_id=integration.pk,
            direction=MirrorJob.Direction.TO_CUSTOMER,
            kind="agent_typing",
            chat=chat,
            payload={"on": event.endswith("_on")},
        )
        return "queued"
    return "ignored"


def _attachment_name(attachment: dict[str, Any]) -> str:
    path = urlparse(str(attachment.get("data_url") or "")).path
    return unquote(path.rsplit("/", 1)[-1]) or f"attachment-{attachment.get('id', '')}"


def _refused(integration: ChatwootIntegration, payload: dict[str, Any], reason: str) -> None:
    """The send was refused: the Chatwoot message is marked failed and a private note says why."""
    client = client_for(integration)
    conversation_id = _id(_dict(payload.get("conversation")).get("id"))
    client.message_status(integration.account_id, conversation_id, payload["id"], "failed", reason)
    client.private_note(
        integration.account_id, conversation_id, f"🚨 The message could not be sent to the customer: {reason}"
    )


def _mark_read(session: Session, chat: str) -> None:
    """Mark the chat read on the channel. Official accounts mark the newest received message (and all
    before it), showing the typing indicator: one call, not one per message."""
    if session.official:
        newest = (
            Message.objects.filter(session=session, chat=chat, from_me=False)
            .order_by("-timestamp", "-id")
            .values_list("message_id", flat=True)
            .first()
        )
        if newest:
            chat_mark_read(session=session, chat=chat, message_ids=[newest])
        return
    chat_mark_read(session=session, chat=chat)


def agent_message_send(integration: ChatwootIntegration, chat: str, payload: dict[str, Any]) -> None:
    session = integration.session
    text = _agent_text(integration, payload)
    quoted = _agent_quoted(integration, payload)
    try:
        try:  # replying from the panel marks the conversation read on the channel
            _mark_read(session, chat)
        except ApplicationError as exc:
            logger.info("Chatwoot reply: chat %s not marked read (%s)", chat, exc)
        sent = _agent_messages_send(integration, chat, payload, text, quoted)
    except (EngineUnavailable, ServiceUnavailable, RateLimited):
        raise  # passing trouble: retried with back-off
    except ApplicationError as exc:
        record = getattr(exc, "record", None)
        if callable(record):
            record()
        _refused(integration, payload, exc.message if hasattr(exc, "message") else str(exc))
        return
    for message in sent or []:
        MessageLink.objects.update_or_create(
            integration=integration,
            message_id=message.message_id,
            defaults={"chat": chat, "chatwoot_id": int(payload["id"])},
        )


def _agent_text(integration: ChatwootIntegration, payload: dict[str, Any]) -> str:
    """The message's text, headed by the agent's name when the integration signs messages."""
    text = payload.get("content") if isinstance(payload.get("content"), str) else ""
    sender = _dict(payload.get("sender"))
    name = sender.get("available_name") or sender.get("name")
    if integration.sign_messages and isinstance(name, str) and name and text:
        text = f"*{name}:*\n{text}"
    return text


def _agent_quoted(integration: ChatwootIntegration, payload: dict[str, Any]) -> QuotedInput | None:
    """The channel message the agent replied to, when Ponte knows it."""
    reply_to = _id(_dict(payload.get("content_attributes")).get("in_reply_to"))
    if reply_to:
        target = MessageLink.objects.filter(integration=integration, chatwoot_id=reply_to).first()
        if target is not None:
            return QuotedInput(message_id=target.message_id)
    return None


def _agent_messages_send(
    integration: ChatwootIntegration,
    chat: str,
    payload: dict[str, Any],
    text: str,
    quoted: QuotedInput | None,
) -> list[Message] | None:
    """The text, or each attachment (the first captioned with the text), sent through the session; None
    when an attachment could not be downloaded for good (the refusal is already noted in Chatwoot)."""
    listed = payload.get("attachments")
    attachments = [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
    if not attachments:
        return [message_send_text(session=integration.session, to=chat, text=text, quoted=quoted)]
    sent = []
    for index, attachment in enumerate(attachments):
        caption = text if index == 0 else ""
        message = _attachment_send(
            integration, chat, payload, attachment, caption, quoted if index == 0 else None
        )
        if message is None:
            return None
        sent.append(message)
    return sent


def _attachment_send(
    integration: ChatwootIntegration,
    chat: str,
    payload: dict[str, Any],
    attachment: dict[str, Any],
    caption: str,
    quoted: QuotedInput | None,
) -> Message | None:
    """Official channels fetch the attachment's URL themselves; other engines get its bytes, downloaded
    here. None when the download failed for good (refused in Chatwoot)."""
    session = integration.session
    kind = FILE_TYPES.get(str(attachment.get("file_type")), "document")
    if session.official:
        return message_send_media(
            session=session,
            to=chat,
            type_=kind,
            url=str(attachment.get("data_url") or ""),
            caption=caption,
            file_name=_attachment_name(attachment),
        )
    try:
        raw = client_for(integration).download(
            str(attachment.get("data_url") or ""), max_bytes=MAX_ATTACHMENT_BYTES
        )
    except ChatwootError as exc:
        if not exc.final:
            raise  # unreachable, 5xx or 429: retried with back-off
        _refused(integration, payload, f"{_attachment_name(attachment)}: {exc}")
        return None
    return message_send_media(
        session=session,
        to=chat,
        type_=kind,
        data=base64.b64encode(raw).decode(),
        caption=caption,
        file_name=_attachment_name(attachment),
        quoted=quoted,
    )


def agent_delete_send(integration: ChatwootIntegration, chat: str, payload: dict[str, Any]) -> None:
    """An agent deleted a message in Chatwoot: deleted for everyone on the channel, where still allowed."""
    links = list(MessageLink.objects.filter(integration=integration, chatwoot_id=payload.get("id")))
    for link in links:
        # Unlinked first (committed: the engine is not called inside a transaction): the channel's own
        # `revoked` echo then finds nothing to delete in Chatwoot.
        kept = {"chat": link.chat, "chatwoot_id": link.chatwoot_id}
        link.delete()
        try:
            message_delete(
                session=integration.session, chat=link.chat, message_id=link.message_id, from_me=True
            )
        except (EngineUnavailable, ServiceUnavailable, RateLimited):
            # A passing fault: linked again, for the retry.
            MessageLink.objects.get_or_create(
                integration=integration, message_id=link.message_id, defaults=kept
            )
            raise
        except ApplicationError as exc:
            logger.info("Chatwoot delete of %s not carried to the channel: %s", link.message_id, exc)


def agent_typing_send(integration: ChatwootIntegration, chat: str, on: bool) -> None:
    """Presence on the unofficial connection; on official accounts mark-as-read with the typing
    indicator (the only typing signal the platforms offer), only when typing starts."""
    session = integration.session
    try:
        if session.official:
            if on:
                _mark_read(session, chat)
            return
        chat_presence(session=session, chat=chat, presence="composing" if on else "paused")
    except ApplicationError as exc:
        logger.info("Chatwoot typing not shown in %s: %s", chat, exc)
