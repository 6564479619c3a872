"""Instance webhooks: the per-session configuration, and routing events into the outbox.

Routing, for a session whose configuration has `allowWebhook` on (nothing is written otherwise):

* `message`: history sync (`data.isHistory`) → `webhookHistory`; the session's own messages
  (`data.fromMe`) → `webhookMessageFromMe`; messages in a group chat → `webhookGroup`; others →
  `webhookMessage`. With `allowNumber` other than "all", only messages whose chat or sender is one of
  the listed numbers go out.
* `group_join`, `group_leave`, `group_update` → `webhookGroup`; `connected`, `disconnected`, `health` →
  `webhookConnection`; `qr` → `webhookQrCode`; `message_ack`, `presence`, `call` → `webhookMessage`.
* Whatever field is empty falls back to `webhookMessage`; with that empty too, the event is not sent.

Each routed event becomes one `Delivery` of kind `instance` in the same outbox as registered webhooks
(same claim, attempts, sweeper), with the instance policy (webhooks.outbox.policy.INSTANCE).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.db import transaction

from core.errors import ValidationFailed
from core.unset import UNSET
from messaging.addressing import is_group
from messaging.engines.events import EngineEvent, MessageEvent
from messaging.instance_keys import instance_key_matches, instance_key_prefix
from messaging.models import Session
from webhooks import meta
from webhooks.errors import InstanceNotFound
from webhooks.models import Delivery, Event, InstanceWebhookConfig
from webhooks.outbox.policy import INSTANCE, target_url_clean
from webhooks.payloads import typed_event

# API name → model attribute, for the URL settings (in the order the instance API lists them).
URL_SETTINGS: dict[str, str] = {
    "webhookMessage": "webhook_message",
    "webhookGroup": "webhook_group",
    "webhookConnection": "webhook_connection",
    "webhookQrCode": "webhook_qrcode",
    "webhookMessageFromMe": "webhook_message_from_me",
    "webhookHistory": "webhook_history",
}
SETTINGS: dict[str, str] = {
    "allowWebhook": "allow_webhook",
    "allowNumber": "allow_number",
    "webhookFormat": "webhook_format",
    **URL_SETTINGS,
}
logger = logging.getLogger(__name__)
_NUMBER = re.compile(r"^\d{6,20}$")


# --- Reads ------------------------------------------------------------------------------------------


def instance_session_get(*, instance_key: str) -> Session:
    """The session with this instance key, its configuration joined; InstanceNotFound (404) if none.
    Found by the key's prefix, then its digest compared in constant time (keys are stored hashed)."""
    prefix = instance_key_prefix(instance_key)
    candidates = (
        Session.objects.select_related("instance_webhook").filter(instance_key_prefix=prefix)
        if prefix
        else []
    )
    for session in candidates:
        if instance_key_matches(session.instance_key_digest, instance_key):
            return session
    raise InstanceNotFound()


def instance_config_of(session: Session) -> InstanceWebhookConfig:
    """The saved configuration, or the defaults (not saved) for a session never configured."""
    try:
        return session.instance_webhook
    except InstanceWebhookConfig.DoesNotExist:
        return InstanceWebhookConfig(session=session)


def instance_config_data(config: InstanceWebhookConfig) -> dict[str, Any]:
    """The configuration under its API names (the reply of GET and PUT)."""
    return {name: getattr(config, attribute) for name, attribute in SETTINGS.items()}


def configured_urls(config: InstanceWebhookConfig) -> list[str]:
    """The API names of the URL settings that hold a URL."""
    return [name for name, attribute in URL_SETTINGS.items() if getattr(config, attribute)]


# --- Writes -----------------------------------------------------------------------------------------


def _clean_url(name: str, url: str) -> str:
    """An instance webhook URL as stored; empty turns the route off."""
    return target_url_clean(url, field=name) if (url or "").strip() else ""


def allow_number_clean(value: str) -> str:
    """The number filter as stored: "all", or distinct digits; shared by the instance API and the admin."""
    value = (value or "").strip()
    if value.lower() in ("", InstanceWebhookConfig.ALL_NUMBERS):
        return InstanceWebhookConfig.ALL_NUMBERS
    numbers = []
    for part in value.split(","):
        number = "".join(ch for ch in part.strip() if ch not in "+ -()")
        if not _NUMBER.match(number):
            raise ValidationFailed(
                f'allowNumber: "all", or comma-separated phone numbers in international format '
                f"(digits only); {part.strip()!r} is not one"
            )
        if number not in numbers:
            numbers.append(number)
    return ",".join(numbers)


@transaction.atomic
def instance_config_update(
    *,
    session: Session,
    allow_webhook: bool = UNSET,
    allow_number: str = UNSET,
    webhook_format: str = UNSET,
    **urls: str,
) -> InstanceWebhookConfig:
    """Create or change a session's instance-webhook configuration; settings not given keep their
    value. Every value is checked before anything is written (URLs by the SSRF rules)."""
    unknown = set(urls) - set(URL_SETTINGS.values())
    if unknown:
        raise TypeError(f"unknown settings {sorted(unknown)}")
    config, _ = InstanceWebhookConfig.objects.select_for_update().get_or_create(session=session)
    if allow_webhook is not UNSET:
        if not isinstance(allow_webhook, bool):
            raise ValidationFailed("allowWebhook: must be true or false")
        config.allow_webhook = allow_webhook
    if allow_number is not UNSET:
        config.allow_number = allow_number_clean(allow_number)
    if webhook_format is not UNSET:
        if webhook_format not in InstanceWebhookConfig.Format.values:
            raise ValidationFailed('webhookFormat: must be "meta" or "plain"')
        config.webhook_format = webhook_format
    api_names = {attribute: name for name, attribute in URL_SETTINGS.items()}
    for attribute, url in urls.items():
        setattr(config, attribute, _clean_url(api_names[attribute], url))
    config.save()
    session.instance_webhook = config
    return config


# --- Routing (called by webhooks.services.emit) -----------------------------------------------------


def number_allowed(config: InstanceWebhookConfig, message: MessageEvent) -> bool:
    if config.allow_number == InstanceWebhookConfig.ALL_NUMBERS:
        return True
    allowed = set(config.allow_number.split(","))
    parties = {meta.user_part(jid) for jid in (message.chat, message.sender, message.sender_pn)}
    return bool(allowed & parties)


def route(config: InstanceWebhookConfig, typed: EngineEvent) -> str:
    """The URL an event goes to, or "" when it goes nowhere (see the module docstring)."""
    name = typed.name
    url = ""
    if isinstance(typed, MessageEvent):
        if typed.is_history:
            url = config.webhook_history
        elif typed.from_me:
            url = config.webhook_message_from_me
        elif is_group(typed.chat):
            url = config.webhook_group
    elif name == "message_edited" and getattr(typed, "from_me", False):
        url = config.webhook_message_from_me
    elif name in ("group_join", "group_leave", "group_update"):
        url = config.webhook_group
    elif name in ("connected", "disconnected", "health"):
        url = config.webhook_connection
    elif name == "qr":
        url = config.webhook_qrcode
    return url or config.webhook_message


def render(config: InstanceWebhookConfig, session: Session, event: Event, typed: EngineEvent) -> dict:
    if config.webhook_format == InstanceWebhookConfig.Format.PLAIN:
        return meta.plain_envelope(session, event, typed)
    return meta.meta_envelope(session, event, typed)


def instance_deliveries(event: Event, given: EngineEvent | None = None) -> list[Delivery]:
    """The instance-webhook delivery of an event (none or one), written in the caller's transaction.
    emit() calls it only for sessions whose instance webhooks are on
    (webhooks.outbox.store's session_targets); `given`: the typed event it was written from, if any
    (webhooks.payloads.typed_event)."""
    if event.name not in meta.FIELDS:
        return []  # e.g. chat_archive: no field of the instance interface carries it
    config = (
        InstanceWebhookConfig.objects.select_related("session")
        .filter(session_id=event.session_id, allow_webhook=True)
        .first()
    )
    if config is None:
        return []
    typed = typed_event(event, given)
    if typed is None or (isinstance(typed, MessageEvent) and not number_allowed(config, typed)):
        return []
    url = route(config, typed)
    if not url:
        return []
    try:
        payload = render(config, config.session, event, typed)
    except (TypeError, ValueError, KeyError, AttributeError):
        # Malformed event data must not fail the caller's transaction (the message is still stored).
        logger.exception("Could not render the instance webhook body of event %s", event.pk)
        return []
    delivery = Delivery.objects.create(
        kind=Delivery.Kind.INSTANCE,
        event=event,
        session_id=event.session_id,
        webhook=None,
        target_url=url,
        payload=payload,
        max_attempts=INSTANCE.default_attempts,
        timeout_seconds=INSTANCE.timeout_seconds,
        next_attempt_at=event.created_at,
    )
    return [delivery]
