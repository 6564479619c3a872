"""Official sessions: creation with verified credentials (a token the channel refuses later disconnects
the session: GraphChannelEngine.credentials_revoked)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.models import Account
from core.errors import ValidationFailed
from messaging.addressing import user_suffix
from messaging.channels import ENGINE_PATH, OFFICIAL_PROVIDERS, WHATSAPP_CLOUD, graph
from messaging.channels.models import ChannelAccount
from messaging.engines.events import ConnectedEvent
from messaging.errors import EngineUnavailable
from messaging.models import Session
from messaging.services.events import engine_event_receive
from messaging.services.sessions import session_create

CLOUD_CREDENTIALS = ("phoneNumberId", "businessAccountId", "accessToken", "appSecret", "verifyToken")
PAGE_CREDENTIALS = ("pageId", "pageAccessToken", "appSecret", "verifyToken")


def required_credentials(provider: str) -> tuple[str, ...]:
    return CLOUD_CREDENTIALS if provider == WHATSAPP_CLOUD else PAGE_CREDENTIALS


def credentials_clean(provider: str, credentials: Any) -> dict[str, str]:
    """The credentials a provider needs, each a non-empty string; 400 naming what is missing."""
    if not isinstance(credentials, dict):
        raise ValidationFailed(f"credentials: an object is required for provider {provider!r}.")
    names = required_credentials(provider)
    missing = [n for n in names if not isinstance(credentials.get(n), str) or not credentials[n].strip()]
    if missing:
        raise ValidationFailed(
            f"credentials: {', '.join(missing)} required (non-empty strings) for provider {provider!r}.",
            extra={"details": [f"credentials.{name}: required" for name in missing]},
        )
    unknown = sorted(set(credentials) - set(names))
    if unknown:
        raise ValidationFailed(
            f"credentials: unknown field(s) {', '.join(unknown)} for provider {provider!r}."
        )
    return {name: credentials[name].strip() for name in names}


def _verify(provider: str, credentials: dict[str, str]) -> dict[str, Any]:
    """Ask the Graph API who the credentials belong to; 400 with Meta's reason when it refuses."""
    if provider == WHATSAPP_CLOUD:
        path, token = credentials["phoneNumberId"], credentials["accessToken"]
    else:
        path, token = "me", credentials["pageAccessToken"]
    try:
        identity = graph.call("GET", path, token)
    except graph.GraphError as exc:
        if exc.unreachable:
            raise EngineUnavailable(f"The Graph API could not verify the credentials: {exc}") from None
        raise ValidationFailed(f"credentials: the Graph API refused them: {exc}") from None
    if (
        provider != WHATSAPP_CLOUD
        and provider != "instagram"
        and str(identity.get("id")) != credentials["pageId"]
    ):
        raise ValidationFailed(
            f"credentials: the page access token belongs to page {identity.get('id')}, "
            f"not {credentials['pageId']}."
        )
    return identity


def channel_session_create(*, account: Account, name: str, provider: str, credentials: Any) -> Session:
    """An official session: credentials checked against the Graph API first (nothing is written when
    they are refused), then stored encrypted; the session is connected from the start."""
    if provider not in OFFICIAL_PROVIDERS:
        raise ValidationFailed(f"provider: {provider!r} is not an official channel.")
    clean = credentials_clean(provider, credentials)
    identity = _verify(provider, clean)
    with transaction.atomic():
        session = session_create(account=account, name=name, provider=provider, engine=ENGINE_PATH)
        display = str(identity.get("verified_name") or identity.get("name") or "")
        ChannelAccount.objects.create(session=session, credentials=clean, display_name=display[:200])
        if provider == WHATSAPP_CLOUD:
            number = "".join(ch for ch in str(identity.get("display_phone_number") or "") if ch.isdigit())
            own = number or clean["phoneNumberId"]
        else:
            number, own = "", clean["pageId"]
        engine_event_receive(
            str(session.pk),
            ConnectedEvent(jid=f"{own}@{user_suffix()}", phone=number, push_name=display, platform=provider),
        )
        session.refresh_from_db()  # the instance key issued in clear stays on the object
    return session
