"""Message bodies of the Graph API's send calls, per channel, and the call that posts them.

WhatsApp Cloud: `POST /{phone-number-id}/messages` with `messaging_product: whatsapp`; Messenger and
Instagram: `POST /{page-id}/messages` with `recipient` and `message` (or `sender_action`). Graph errors
become the engine contract's exceptions here, once for every operation.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from messaging.addressing import LID_SERVER
from messaging.channels import CHANNEL_NAMES, WHATSAPP_CLOUD, graph
from messaging.channels.models import ChannelAccount
from messaging.engines.base import (
    EngineCredentialsRevoked,
    EngineNotConnected,
    EngineOutsideWindow,
    EngineRateLimited,
    EngineRefused,
    EngineUnavailableError,
    EngineUnsupported,
    Sent,
)

DEFAULT_RETRY_AFTER = 60


def unsupported(provider: str, operation: str) -> EngineUnsupported:
    return EngineUnsupported(f"{CHANNEL_NAMES.get(provider, provider)} sessions cannot {operation}.")


def account_of(session_id: str) -> ChannelAccount:
    account = ChannelAccount.objects.select_related("session").filter(session_id=session_id).first()
    if account is None or not account.credentials:
        raise EngineNotConnected("The session has no channel credentials.")
    return account


def token_of(account: ChannelAccount) -> str:
    if account.session.provider == WHATSAPP_CLOUD:
        return account.credential("accessToken")
    return account.credential("pageAccessToken")


def sender_path(account: ChannelAccount) -> str:
    """Where sends are posted: the phone number (Cloud API) or the page / Instagram account."""
    if account.session.provider == WHATSAPP_CLOUD:
        return f"{account.credential('phoneNumberId')}/messages"
    return f"{account.credential('pageId')}/messages"


def translate(error: graph.GraphError, account: ChannelAccount) -> Exception:
    """A Graph API error → the engine contract's exception (mapped to HTTP by the services)."""
    detail = f"{CHANNEL_NAMES.get(account.session.provider)} refused the call: {error}"
    if error.code == graph.TOKEN_INVALID:
        return EngineCredentialsRevoked(
            detail, session_id=str(account.session_id), reason=f"access token refused: {error.message}"[:300]
        )
    if error.code in graph.RATE_LIMIT_CODES or error.status == 429:
        return EngineRateLimited(detail, retry_after=error.retry_after or DEFAULT_RETRY_AFTER)
    if error.code == graph.OUTSIDE_WINDOW:
        return EngineOutsideWindow(detail)
    if error.unreachable:
        return EngineUnavailableError(detail)
    return EngineRefused(detail)


def post(account: ChannelAccount, body: dict[str, Any], path: str | None = None) -> dict[str, Any]:
    try:
        return graph.call("POST", path or sender_path(account), token_of(account), json=body)
    except graph.GraphError as exc:
        raise translate(exc, account) from None


def recipient(jid: str) -> str:
    """`5511999990000@s.whatsapp.net` → `5511999990000` (a phone number, PSID or IGSID). The Graph API
    addresses people by number or page-scoped id only: a WhatsApp linked id (`…@lid`) is refused."""
    local, _, server = jid.partition("@")
    if server == LID_SERVER:
        raise EngineUnsupported(
            f"The graph engine (official channels) has no linked ids: {jid} cannot be addressed; "
            "use the phone number."
        )
    return local


def send(account: ChannelAccount, to: str, kind: str, payload: Any, *, context_id: str = "") -> Sent:
    """Send one message: `kind` and `payload` in the Cloud API's terms (`text` → `{"body": ...}`)."""
    if account.session.provider == WHATSAPP_CLOUD:
        body: dict[str, Any] = {
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": recipient(to),
            "type": kind,
            kind: payload,
        }
        if context_id:
            body["context"] = {"message_id": context_id}
        reply = post(account, body)
        message_id = str(((reply.get("messages") or [{}])[0]).get("id") or "")
    else:
        body = {"recipient": {"id": recipient(to)}, "messaging_type": "RESPONSE", "message": payload}
        if context_id:
            body["message"] = {**payload, "reply_to": {"mid": context_id}}
        reply = post(account, body)
        message_id = str(reply.get("message_id") or "")
    return Sent(message_id=message_id, chat=to, timestamp=datetime.now(tz=UTC))
