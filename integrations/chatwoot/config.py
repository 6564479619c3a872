"""The Chatwoot configuration of a session: written only once its inbox is found.

The account is not asked for: Ponte searches the inbox identifier among the inboxes of every account
the token can see (`GET /api/v1/profile`, then each account's inboxes). Found nowhere → nothing is
written and the reason is logged: a first configuration is refused (400 CHATWOOT_INBOX_NOT_FOUND); an
existing one keeps its settings (the mirror goes on with them) and shows the reason in its `status`.
Found → the inbox's webhook is pointed at Ponte's receiving URL.

The receiving URL's token is stored as a digest (models.ChatwootIntegration), so the full URL exists only
in the request that issues a token: the first configuration, one that moves the integration to another
inbox, and `webhook_token_regenerate`. Those replies carry it as `webhookUrl` (to paste by hand where the
platform cannot be updated); any other reply shows only its prefix. The URL is a write credential (it
lets whoever holds it make agents speak to customers when the platform does not sign), so it is shown
to admins only: the interfaces pass `credentials=False` for viewer and operator keys.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.keys import digests_match
from core.errors import NotFound, ValidationFailed
from integrations.chatwoot.client import ChatwootClient, ChatwootError
from integrations.chatwoot.models import ChatwootIntegration, webhook_token_prefix
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


def webhook_url(integration: ChatwootIntegration) -> str | None:
    """The full receiving URL, known only on the object that issued its token (None otherwise)."""
    if not integration.webhook_token:
        return None
    return f"{settings.PONTE_BASE_URL}/integrations/chatwoot/{integration.webhook_token}"


def integration_by_token(token: str) -> ChatwootIntegration | None:
    """The integration whose receiving token this is: found by the token's prefix, then its digest
    compared in constant time. A token that cannot be one (odd bytes, a NUL) is never looked up."""
    prefix = webhook_token_prefix(token)
    if prefix is None:
        return None
    for integration in ChatwootIntegration.objects.filter(webhook_token_prefix=prefix):
        if digests_match(integration.webhook_token_digest, token):
            return integration
    return None


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
        moved = current is not None and (
            (current.base_url, current.account_id, current.inbox_id)
            != (fields["base_url"], found.account_id, found.inbox_id)
        )
        for name, value in fields.items():
            setattr(integration, name, value)
        for wire, attribute in OPTIONS.items():
            if wire in values and values[wire] is not None:
                setattr(integration, attribute, bool(values[wire]))
        integration.account_id, integration.inbox_id = found.account_id, found.inbox_id
        integration.status, integration.status_reason = ChatwootIntegration.Status.OK, ""
        integration.updated_at = timezone.now()
        if moved:  # another inbox: a new receiving URL to point it at, and its own secret (if any)
            integration.webhook_token_issue()
            integration.webhook_secret = ""
        integration.save()
    # Same inbox: its webhook already points at the (unchanged) URL, which only its digest here could not
    # rebuild anyway; `webhook_token_regenerate` points it again.
    if integration.webhook_token:
        _inbox_point(integration)
    return integration


def _inbox_point(integration: ChatwootIntegration) -> None:
    """The inbox's webhook → the URL just issued; where that is refused, `webhookUrl` is pasted by hand.
    A signing secret Chatwoot returns (4.13+) is kept: from then on its webhooks must be signed."""
    try:
        inbox = client_for(integration).inbox_update(
            integration.account_id, integration.inbox_id, webhook_url(integration)
        )
    except (ChatwootError, UnsafeTarget) as exc:
        logger.info("Chatwoot inbox %s webhook not updated: %s", integration.inbox_id, exc)
        return
    secret = inbox.get("secret") or inbox.get("webhook_secret") if isinstance(inbox, dict) else None
    if isinstance(secret, str) and secret and secret != integration.webhook_secret:
        integration.webhook_secret = secret
        integration.save(update_fields=["webhook_secret"])


def webhook_token_regenerate(*, session: Session) -> ChatwootIntegration:
    """A new receiving token (the old URL answers 404 from now on), and the inbox's webhook pointed at the
    new URL; the returned integration holds the token in clear, the only time it is available."""
    integration = integration_of(session)
    integration.webhook_token_issue()
    integration.updated_at = timezone.now()
    integration.save(update_fields=["webhook_token_prefix", "webhook_token_digest", "updated_at"])
    logger.info("Chatwoot integration %s: receiving URL regenerated", integration.pk)
    if integration.inbox_id is not None and integration.account_id is not None:
        _inbox_point(integration)
    return integration


def integration_delete(*, session: Session) -> None:
    integration_of(session).delete()


def integration_data(integration: ChatwootIntegration, *, credentials: bool) -> dict[str, Any]:
    """The configuration as the interfaces show it (never the access token). `credentials` (admins, and
    the instance key's holder): also the receiving URL, in full only in the reply that issued it (null
    otherwise), and its token's prefix."""
    data: dict[str, Any] = {
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
        "signedWebhooks": bool(integration.webhook_secret),
    }
    if credentials:
        data["webhookUrl"] = webhook_url(integration)
        data["webhookTokenPrefix"] = integration.webhook_token_prefix
    return data
