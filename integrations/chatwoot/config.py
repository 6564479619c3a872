"""The Chatwoot configuration of a session: written only once its inbox is found.

The account is not asked for: Ponte searches the inbox identifier among the inboxes of every account
the token can see (`GET /api/v1/profile`, then each account's inboxes). Found nowhere → nothing is
written and the reason is logged: a first configuration is refused (400 CHATWOOT_INBOX_NOT_FOUND); an
existing one keeps its settings (the mirror goes on with them) and shows the reason in its `status`.
Found → the inbox's webhook is pointed at Ponte's receiving URL (returned as `webhookUrl` either way,
to paste by hand where the platform cannot be updated).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.errors import NotFound, ValidationFailed
from integrations.chatwoot.client import ChatwootClient, ChatwootError
from integrations.chatwoot.models import ChatwootIntegration
from messaging.models import Session
from net.transport import UnsafeTarget, validate_target_url

logger = logging.getLogger(__name__)

OPTIONS = {
    "signMessages": "sign_messages",
    "reopenConversations": "reopen_conversations",
    "importContacts": "import_contacts",
    "enabled": "enabled",
}


class ChatwootNotConfigured(NotFound):
    code = "CHATWOOT_NOT_CONFIGURED"
    default_message = "This session has no Chatwoot integration."


class ChatwootInboxNotFound(ValidationFailed):
    code = "CHATWOOT_INBOX_NOT_FOUND"


@dataclass(frozen=True)
class InboxFound:
    account_id: int
    inbox_id: int


def webhook_url(integration: ChatwootIntegration) -> str:
    return f"{settings.PONTE_BASE_URL}/integrations/chatwoot/{integration.webhook_token}"


def client_for(integration: ChatwootIntegration) -> ChatwootClient:
    return ChatwootClient(integration.base_url, integration.access_token)


def inbox_find(client: ChatwootClient, inbox_identifier: str) -> InboxFound | None:
    """The account and inbox holding `inbox_identifier`, searched across every account of the token."""
    for account in client.profile().get("accounts") or []:
        try:
            inboxes = client.inboxes(int(account["id"]))
        except ChatwootError as exc:  # an account whose inboxes this user may not list
            logger.info("Chatwoot account %s: inboxes not listed (%s)", account.get("id"), exc)
            continue
        for inbox in inboxes:
            if str(inbox.get("inbox_identifier") or "") == inbox_identifier:
                return InboxFound(account_id=int(account["id"]), inbox_id=int(inbox["id"]))
    return None


def _search(base_url: str, token: str, inbox_identifier: str) -> tuple[InboxFound | None, str]:
    try:
        found = inbox_find(ChatwootClient(base_url, token), inbox_identifier)
    except UnsafeTarget as exc:
        return None, f"baseUrl refused: {exc}"
    except ChatwootError as exc:
        return None, str(exc)
    if found is None:
        return None, f"No inbox with identifier {inbox_identifier!r} in any account this token can see."
    return found, ""


def inbox_search_reason(base_url: str, token: str, inbox_identifier: str) -> str:
    """Why the inbox cannot be used ("" when it is found); the address is checked first."""
    validate_target_url(base_url)
    return _search(base_url.rstrip("/"), token, inbox_identifier)[1]


def integration_of(session: Session) -> ChatwootIntegration:
    integration = ChatwootIntegration.objects.filter(session=session).first()
    if integration is None:
        raise ChatwootNotConfigured()
    return integration


def _clean(values: dict[str, Any], current: ChatwootIntegration | None) -> dict[str, Any]:
    base_url = str(values.get("baseUrl") or (current.base_url if current else "")).strip().rstrip("/")
    token = str(values.get("accessToken") or (current.access_token if current else "")).strip()
    identifier = str(values.get("inboxIdentifier") or (current.inbox_identifier if current else "")).strip()
    missing = [
        n
        for n, v in (("baseUrl", base_url), ("accessToken", token), ("inboxIdentifier", identifier))
        if not v
    ]
    if missing:
        raise ValidationFailed(f"{', '.join(missing)}: required")
    validate_target_url(base_url)
    return {"base_url": base_url, "access_token": token, "inbox_identifier": identifier}


def integration_configure(*, session: Session, values: dict[str, Any]) -> ChatwootIntegration:
    """Create or replace the session's configuration once its inbox is found (see the module doc)."""
    current = ChatwootIntegration.objects.filter(session=session).first()
    fields = _clean(values, current)
    found, reason = _search(fields["base_url"], fields["access_token"], fields["inbox_identifier"])
    if found is None:
        logger.warning("Chatwoot configuration of session %s not written: %s", session.pk, reason)
        if current is None:
            raise ChatwootInboxNotFound(reason, extra={"status": ChatwootIntegration.Status.INBOX_NOT_FOUND})
        # The settings in use are kept (the mirror goes on with them); the status says the change failed.
        current.status = ChatwootIntegration.Status.INBOX_NOT_FOUND
        current.status_reason = reason[:500]
        current.save(update_fields=["status", "status_reason"])
        return current
    with transaction.atomic():
        integration = current or ChatwootIntegration(session=session)
        for name, value in fields.items():
            setattr(integration, name, value)
        for wire, attribute in OPTIONS.items():
            if wire in values and values[wire] is not None:
                setattr(integration, attribute, bool(values[wire]))
        integration.account_id, integration.inbox_id = found.account_id, found.inbox_id
        integration.status, integration.status_reason = ChatwootIntegration.Status.OK, ""
        integration.updated_at = timezone.now()
        integration.save()
    try:  # the inbox's webhook → Ponte; where that is refused, `webhookUrl` is pasted by hand
        inbox = client_for(integration).inbox_update(
            found.account_id, found.inbox_id, webhook_url(integration)
        )
    except (ChatwootError, UnsafeTarget) as exc:
        logger.info("Chatwoot inbox %s webhook not updated: %s", found.inbox_id, exc)
    else:
        secret = inbox.get("secret") or inbox.get("webhook_secret") if isinstance(inbox, dict) else None
        if isinstance(secret, str) and secret and secret != integration.webhook_secret:
            # From now on this inbox's webhooks must be signed with it.
            integration.webhook_secret = secret
            integration.save(update_fields=["webhook_secret"])
    return integration


def integration_delete(*, session: Session) -> None:
    integration_of(session).delete()


def integration_data(integration: ChatwootIntegration) -> dict[str, Any]:
    """The configuration as the interfaces show it (never the access token)."""
    return {
        "baseUrl": integration.base_url,
        "inboxIdentifier": integration.inbox_identifier,
        "accountId": integration.account_id,
        "inboxId": integration.inbox_id,
        "signMessages": integration.sign_messages,
        "reopenConversations": integration.reopen_conversations,
        "importContacts": integration.import_contacts,
        "enabled": integration.enabled,
        "status": integration.status,
        "statusReason": integration.status_reason,
        "webhookUrl": webhook_url(integration),
    }
