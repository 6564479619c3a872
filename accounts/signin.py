"""Sign-in attempts, limited the same way wherever a person signs in: the account area (portal/auth.py)
and the staff admin (accounts/admin_site.py).

Each attempt is counted per (username, client address) against PONTE_SIGNIN_RATE and per client
address against PONTE_SIGNIN_CLIENT_RATE, before the password is tried. Past either, the sign-in page
is answered again with the refusal as the form's error, status 429 and Retry-After, and one warning
line is logged. Counters are django-ratelimit's, in the shared cache (accounts/ratelimit.py).
"""

from __future__ import annotations

import logging
from typing import TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext_lazy

from accounts.netaddr import client_address
from accounts.ratelimit import Usage, usage_hit

logger = logging.getLogger(__name__)

SIGNIN_REFUSED = gettext_lazy("Too many sign-in attempts. Wait a minute and try again.")
_REFUSAL_ATTR = "ponte_signin_refusal"
Response = TypeVar("Response", bound=HttpResponseBase)


def signin_refusal(request: HttpRequest, *, username: str) -> Usage | None:
    """Count this attempt per (username, client address) and per client address; the counter that
    refuses it, or None.

    The pair, not the username alone, so that wrong passwords sent from elsewhere never lock a person
    out of their own address; the client address alone bounds one address guessing across usernames."""
    client = client_address(request)
    username = username.strip().lower()
    counters = [("signin:ip", client, settings.PONTE_SIGNIN_CLIENT_RATE)]
    if username:
        counters.append(("signin:user-ip", f"{username} {client}", settings.PONTE_SIGNIN_RATE))
    refusal = None
    for group, subject, rate in counters:
        usage = usage_hit(request, group=group, subject=subject, rate=rate)
        if usage is not None and usage.exceeded and refusal is None:
            refusal = usage
    if refusal is not None:
        # The path says which sign-in (account area or admin); never the password, nor the username,
        # which people sometimes type their password into.
        logger.warning("Sign-in refused at %s: too many attempts from %s", request.path, client)
    return refusal


class SigninLimits:
    """Mixed into an AuthenticationForm (before it): the attempt is counted before the password is
    tried, and refused with SIGNIN_REFUSED as the form's error past a limit."""

    request: HttpRequest | None
    data: dict

    def clean(self) -> dict:
        if self.request is not None:
            refusal = signin_refusal(self.request, username=str(self.data.get("username", "")))
            if refusal is not None:
                setattr(self.request, _REFUSAL_ATTR, refusal)
                raise ValidationError(SIGNIN_REFUSED, code="throttled")
        return super().clean()  # type: ignore[misc]


def with_refusal_status(request: HttpRequest, response: Response) -> Response:
    """`response` (the sign-in view's) as 429 with Retry-After when its form refused the attempt."""
    refusal: Usage | None = getattr(request, _REFUSAL_ATTR, None)
    if refusal is not None:
        response.status_code = 429
        response["Retry-After"] = str(refusal.retry_after)
    return response
