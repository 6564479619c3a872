"""Customer → platform: channel events of a session mirrored into its Chatwoot inbox (run by jobs),
read from the engine's typed events (messaging.engines.events).

* contact: found by identifier (the chat's JID) or created; a phone number is given only when the JID
  is a phone number's — a contact known by an anonymous id (`…@lid`) keeps that id as its identifier;
  one person is one conversation: a message under one of a person's two ids (the event's `senderLid`
  and `senderPn`, messaging.services.lids) goes to the conversation already linked to the other;
* conversation: the linked one while it is open; a resolved one is reopened when
  `reopen_conversations` is set, else a new one is started;
* message: `incoming` (or `outgoing` for what the account typed on its phone), `source_id` `WAID:<id>`,
  quotes as `in_reply_to`, the channel's timestamp in `content_attributes.external_created_at`, media as
  multipart attachments under their real file names; media over 40 MB or that cannot be read → a notice;
* receipts: delivered/read of our messages → the Chatwoot message's status;
* typing: the customer's typing shown in an existing conversation (never opens one).
"""

from __future__ import annotations

import logging
import mimetypes
from typing import Any

from django.conf import settings

from integrations.chatwoot.client import ChatwootClient, ChatwootError, Upload
from integrations.chatwoot.config import client_for
from integrations.chatwoot.mirror_lists import forwarded_text, list_text
from integrations.chatwoot.mirror_polls_edits import poll_text
from integrations.chatwoot.models import ChatLink, ChatwootIntegration, MessageLink
from messaging.addressing import is_group, user_suffix
from messaging.engines.events import MessageAckEvent, MessageEvent, PresenceEvent
from messaging.media import MediaLinkExpired, MediaLinkInvalid, media_link_read, media_storage

logger = logging.getLogger(__name__)

MAX_MEDIA_BYTES = 40 * 1024 * 1024
MEDIA_TYPES = {"image", "video", "audio", "voice", "document", "sticker"}
OPEN_STATUSES = {"open", "pending", "snoozed"}


def _phone_of(chat: str) -> str:
    local, _, domain = chat.partition("@")
    if domain in ("", user_suffix(), "s.whatsapp.net", "c.us") and local.isdigit():
        return f"+{local}"
    return ""  # a group, an anonymous id (@lid) or a platform-scoped id: never made into a phone


class ContactNotImported(Exception):
    """The chat has no Chatwoot contact and `import_contacts` is off: nothing is mirrored for it."""


def _found(client: ChatwootClient, integration: ChatwootIntegration, chat: str) -> tuple[int, str] | None:
    """The contact whose identifier is `chat`: (contact id, its source id in our inbox or "")."""
    for contact in client.contacts_search(integration.account_id, chat):
        if contact.get("identifier") == chat:
            source_id = ""
            for contact_inbox in contact.get("contact_inboxes") or []:
                if (contact_inbox.get("inbox") or {}).get("id") == integration.inbox_id:
                    source_id = str(contact_inbox.get("source_id") or "")
            return int(contact["id"]), source_id
    return None


def _contact(
    client: ChatwootClient, integration: ChatwootIntegration, chat: str, name: str
) -> tuple[int, str]:
    """The Chatwoot contact of `chat` (found by identifier, else created when `import_contacts` is on):
    (contact id, source id)."""
    found = _found(client, integration, chat)
    if found is not None:
        return found
    if not integration.import_contacts:
        raise ContactNotImported(chat)
    fields: dict[str, Any] = {
        "inbox_id": integration.inbox_id,
        "name": name or chat.split("@")[0],
        "identifier": chat,
    }
    phone = _phone_of(chat)
    if phone:
        fields["phone_number"] = phone
    try:
        created = client.contact_create(integration.account_id, fields)
    except ChatwootError as exc:
        # Created meanwhile (an agent, another integration): "Identifier has already been taken".
        found = _found(client, integration, chat) if exc.status == 422 else None
        if found is None:
            raise
        return found
    contact = created.get("contact") or created
    source_id = str((created.get("contact_inbox") or {}).get("source_id") or "")
    return int(contact["id"]), source_id


def _open_or_new(
    client: ChatwootClient,
    integration: ChatwootIntegration,
    contact_id: int,
    source_id: str,
    candidates: list[dict],
) -> int:
    account = integration.account_id
    mine = [c for c in candidates if c.get("inbox_id") == integration.inbox_id]
    for conversation in mine:
        if conversation.get("status") in OPEN_STATUSES:
            return int(conversation["id"])
    if mine and integration.reopen_conversations:
        conversation_id = int(mine[0]["id"])
        client.conversation_status(account, conversation_id, "open")
        return conversation_id
    fields: dict[str, Any] = {"contact_id": contact_id, "inbox_id": integration.inbox_id}
    if source_id:
        fields["source_id"] = source_id
    return int(client.conversation_create(account, fields)["id"])


def conversation_for(
    client: ChatwootClient, integration: ChatwootIntegration, chat: str, name: str
) -> ChatLink:
    """The chat's link with a usable conversation (found, reopened or started)."""
    link = ChatLink.objects.filter(integration=integration, chat=chat).first()
    if link is None:
        contact_id, source_id = _contact(client, integration, chat, name)
        candidates = client.contact_conversations(integration.account_id, contact_id)
        conversation_id = _open_or_new(client, integration, contact_id, source_id, candidates)
        if not source_id:  # a contact of another inbox: Chatwoot made its contact inbox for ours
            conversation = client.conversation(integration.account_id, conversation_id)
            source_id = str((conversation.get("contact_inbox") or {}).get("source_id") or "")
        link, _ = ChatLink.objects.update_or_create(
            integration=integration,
            chat=chat,
            defaults={"contact_id": contact_id, "source_id": source_id, "conversation_id": conversation_id},
        )
        return link
    current = (
        client.conversation(integration.account_id, link.conversation_id) if link.conversation_id else {}
    )
    if current.get("status") in OPEN_STATUSES:
        return link
    link.conversation_id = _open_or_new(
        client, integration, link.contact_id, link.source_id, [current] if current else []
    )
    link.save(update_fields=["conversation_id"])
    return link


# --- Message content ------------------------------------------------------------------------------


def _file_name(event: MessageEvent) -> str:
    given = (event.file_name or "").strip()
    if given:
        return given
    mime = (event.mime_type or "").split(";")[0]
    extension = ".ogg" if mime == "audio/ogg" else (mimetypes.guess_extension(mime) or ".bin")
    kind = "voice" if event.voice or event.type == "voice" else (event.type or "file")
    return f"{kind}-{event.id}{extension}"


def _media_bytes(client: ChatwootClient, url: str) -> bytes:
    """A Ponte media link is read from storage; any other link is downloaded (checked, ≤ 40 MB)."""
    prefix = f"{settings.PONTE_BASE_URL}/api/media/"
    if url.startswith(prefix):
        try:
            link = media_link_read(url[len(prefix) :])
        except (MediaLinkInvalid, MediaLinkExpired):
            raise ChatwootError("the media link is no longer valid") from None
        with media_storage().open(link.path, "rb") as stored:
            content = stored.read(MAX_MEDIA_BYTES + 1)
        if len(content) > MAX_MEDIA_BYTES:
            raise ChatwootError("larger than 40 MB")
        return content
    return client.download(url, max_bytes=MAX_MEDIA_BYTES)


def _notice(event: MessageEvent, why: str) -> str:
    return f"📎 {event.type or 'media'} {_file_name(event)} was not mirrored: {why}."


def _text_of(event: MessageEvent) -> str:
    return forwarded_text(event, _kind_text(event))


def _kind_text(event: MessageEvent) -> str:
    listed = list_text(event)
    if listed is not None:
        return listed
    kind, where = event.type, event.location
    if kind == "location" and where is not None:
        label = " ".join(part for part in (where.name, where.address) if part).strip()
        return f"📍 {label}\nhttps://maps.google.com/?q={where.latitude},{where.longitude}".strip()
    if kind in ("contact", "contacts") and event.contacts:
        cards = [f"👤 {card.display_name} {card.phone_number}".strip() for card in event.contacts]
        return "\n".join(cards)
    if kind == "poll" and event.poll is not None:
        return poll_text(event.poll)
    if event.selected_title or event.selected_id:
        return str(event.selected_title or event.selected_id)
    return event.text or event.caption or ""


def _attachment(client: ChatwootClient, event: MessageEvent, content: str) -> tuple[str, list[Upload]]:
    """A media message's file as an upload, or a notice in the content saying why it is not there."""
    if (event.size or 0) > MAX_MEDIA_BYTES:
        return "\n".join(filter(None, [content, _notice(event, "larger than 40 MB")])), []
    if not event.media_url:
        return "\n".join(filter(None, [content, _notice(event, "the download was refused")])), []
    try:
        raw = _media_bytes(client, event.media_url)
    except ChatwootError as exc:
        return "\n".join(filter(None, [content, _notice(event, str(exc))])), []
    mime = (event.mime_type or "application/octet-stream").split(";")[0]
    return content, [Upload(file_name=_file_name(event), mime_type=mime, content=raw)]


def _reply_attributes(integration: ChatwootIntegration, event: MessageEvent) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if event.timestamp:
        attributes["external_created_at"] = int(event.timestamp)
    quoted = event.quoted.message_id if event.quoted is not None else ""
    if quoted:
        target = MessageLink.objects.filter(integration=integration, message_id=quoted).first()
        attributes["in_reply_to_external_id"] = f"WAID:{quoted}"
        if target is not None:
            attributes["in_reply_to"] = target.chatwoot_id
    return attributes


def message_mirror(integration: ChatwootIntegration, event: MessageEvent) -> None:
    if event.type == "revoked":
        revoked_mirror(integration, event)
        return
    if event.type == "reaction" or not event.id:
        return
    if MessageLink.objects.filter(integration=integration, message_id=event.id).exists():
        return  # already mirrored, or sent by an agent from Chatwoot (the engine's echo)
    client = client_for(integration)
    chat = _linked_chat(integration, event)
    try:
        link = conversation_for(client, integration, chat, "" if event.from_me else event.push_name)
    except ContactNotImported:
        logger.info("Chat %s has no Chatwoot contact and importContacts is off: not mirrored", chat)
        return
    content = _text_of(event)
    if is_group(chat) and not event.from_me and event.sender:
        content = f"**{event.push_name or event.sender.split('@')[0]}:** {content}"
    uploads: list[Upload] = []
    if event.type in MEDIA_TYPES:
        content, uploads = _attachment(client, event, content)
    fields: dict[str, Any] = {
        "content": content,
        "message_type": "outgoing" if event.from_me else "incoming",
        "source_id": f"WAID:{event.id}",
    }
    attributes = _reply_attributes(integration, event)
    if attributes:
        fields["content_attributes"] = attributes
    created = client.message_create(integration.account_id, link.conversation_id, fields, uploads)
    MessageLink.objects.update_or_create(
        integration=integration,
        message_id=event.id,
        defaults={"chat": chat, "chatwoot_id": int(created["id"])},
    )


def _linked_chat(integration: ChatwootIntegration, event: MessageEvent) -> str:
    """The chat a message is mirrored under: its own, or the person's other id when only that one is
    linked to a conversation already (a read only when the event names another id)."""
    chat = event.chat
    if is_group(chat) or event.from_me:
        return chat
    others = [jid for jid in (event.sender_lid, event.sender_pn) if jid and jid != chat]
    if not others or ChatLink.objects.filter(integration=integration, chat=chat).exists():
        return chat
    linked = ChatLink.objects.filter(integration=integration, chat__in=others).values_list("chat", flat=True)
    return next(iter(linked), chat)


def revoked_mirror(integration: ChatwootIntegration, event: MessageEvent) -> None:
    """A message deleted for everyone on the channel is deleted in Chatwoot too (shown as deleted)."""
    revoked = MessageLink.objects.filter(integration=integration, message_id=event.revoked_message_id)
    for target in list(revoked):
        chat_link = ChatLink.objects.filter(integration=integration, chat=target.chat).first()
        if chat_link is not None and chat_link.conversation_id:
            client_for(integration).message_delete(
                integration.account_id, chat_link.conversation_id, target.chatwoot_id
            )
        target.delete()


def ack_mirror(integration: ChatwootIntegration, event: MessageAckEvent) -> None:
    """Delivered/read/failed of one of our messages → its Chatwoot message's status."""
    status = {"delivered": "delivered", "read": "read", "played": "read", "failed": "failed"}.get(
        event.status
    )
    target = MessageLink.objects.filter(integration=integration, message_id=event.message_id).first()
    if status is None or target is None:
        return
    link = ChatLink.objects.filter(integration=integration, chat=target.chat).first()
    if link is None or not link.conversation_id:
        return
    client_for(integration).message_status(
        integration.account_id, link.conversation_id, target.chatwoot_id, status, event.error or ""
    )


def presence_mirror(integration: ChatwootIntegration, chat: str, event: PresenceEvent) -> None:
    """The customer typing, in the conversation already linked (never opens one)."""
    link = ChatLink.objects.filter(integration=integration, chat=chat).first()
    if link is None or not link.conversation_id or not link.source_id:
        return
    on = event.presence in ("composing", "recording")
    client_for(integration).contact_typing(
        integration.inbox_identifier, link.source_id, link.conversation_id, on
    )
