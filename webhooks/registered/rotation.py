"""Rotating a registered webhook's signing secret without losing a delivery.

During the overlap both secrets sign: `webhook-signature` carries one `v1,` signature per secret, the
new one first, space-separated (the Standard Webhooks rotation form, which the stock libraries accept
when either matches), and `x-webhook-signature` (one hex value) uses the new secret. A receiver updates
its secret at any time within the overlap; afterwards only the new one signs. Both are encrypted at rest.
"""

from __future__ import annotations

import base64
import os
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core.errors import ValidationFailed
from webhooks.models import Webhook
from webhooks.signing import STANDARD_PREFIX

MAX_OVERLAP_SECONDS = 7 * 24 * 60 * 60
DEFAULT_OVERLAP_SECONDS = 24 * 60 * 60
MAX_SECRET_CHARS = 500


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes."""
    return STANDARD_PREFIX + base64.b64encode(os.urandom(32)).decode()


def _overlap_clean(value: object) -> int:
    if value is None:
        return DEFAULT_OVERLAP_SECONDS
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed("overlapSeconds: must be a whole number of seconds")
    if not 0 <= value <= MAX_OVERLAP_SECONDS:
        raise ValidationFailed(f"overlapSeconds: must be between 0 and {MAX_OVERLAP_SECONDS}")
    return value


def _secret_clean(secret: str | None, current: str) -> str:
    if not secret:
        return new_secret()
    if len(secret) > MAX_SECRET_CHARS:
        raise ValidationFailed(f"secret: at most {MAX_SECRET_CHARS} characters")
    if secret == current:
        raise ValidationFailed("secret: must differ from the current secret")
    return secret


@transaction.atomic
def webhook_secret_rotate(
    *, webhook: Webhook, secret: str | None = None, overlap_seconds: int | None = None
) -> tuple[Webhook, str]:
    """Give the webhook a new secret (generated when none is given); the old one keeps signing too for
    `overlap_seconds` (default a day, 0: not at all). (webhook, the new secret, to be shown once)."""
    overlap = _overlap_clean(overlap_seconds)
    webhook = Webhook.objects.select_for_update().get(pk=webhook.pk)
    secret = _secret_clean(secret, webhook.secret)
    now = timezone.now()
    if webhook.secret and overlap > 0:
        webhook.previous_secret = webhook.secret
        webhook.previous_secret_expires_at = now + timedelta(seconds=overlap)
    else:
        webhook.previous_secret, webhook.previous_secret_expires_at = "", None
    webhook.secret = secret
    webhook.updated_at = now
    webhook.save()
    return webhook, secret
