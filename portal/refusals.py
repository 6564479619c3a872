"""Services' refusals in the visitor's language.

The services speak English, as the API that shares them must (its messages never change with
Accept-Language). The account area shows the same refusals translated: a message written the same way
every time is looked up in the catalogue as it stands; one that carries the case's details (a plan's
name, a session id) is replaced, outside English, by its kind's sentence. Any other is shown as the
service wrote it.
"""

from __future__ import annotations

from django.utils.translation import get_language, gettext, gettext_lazy, gettext_noop

from accounts.errors import PlanLimitReached
from core.errors import ApplicationError, RateLimited, ServiceUnavailable
from messaging.errors import EngineUnavailable, InvalidPhoneNumber, SessionNotInQrState
from webhooks.errors import WebhookLimitReached

# Fixed messages the account area can show; marked so that makemessages keeps them in the catalogue.
FIXED_MESSAGES = (
    gettext_noop("An account with this email already exists; sign in or reset the password."),
    gettext_noop("The session is already paired; log out first to pair another phone."),
    gettext_noop("url refused: it must start with http:// or https://"),
    gettext_noop("url refused: it has no host"),
    # net.transport's REFUSED_MESSAGE and CONNECT_REFUSED_MESSAGE (a test keeps them in step).
    gettext_noop("url refused: its host must resolve only to public internet addresses"),
    gettext_noop(
        "url refused at connection time: its host no longer resolves only to public internet addresses"
    ),
    gettext_noop("url refused: it must not carry a user name or password; use the webhook secret"),
    gettext_noop("retryCount: must be a whole number"),
    gettext_noop("The account's plan does not allow more of this resource."),
    gettext_noop("The session engine is unreachable or not answering; try again shortly."),
    gettext_noop("A service this call needs is temporarily unreachable; retry after a few seconds."),
    gettext_noop("The session's channel does not support this operation."),
    gettext_noop("The request is not valid."),
    gettext_noop("The request has invalid or missing fields."),
    gettext_noop("The session is not connected; pair it by QR code or phone code first."),
)
# Most specific kind first (a webhook limit is a plan limit).
BY_KIND: tuple[tuple[type[ApplicationError], str], ...] = (
    (WebhookLimitReached, gettext_lazy("Your plan allows no more webhooks; delete one or upgrade the plan.")),
    (PlanLimitReached, gettext_lazy("Your plan allows no more sessions; delete one or upgrade the plan.")),
    (SessionNotInQrState, gettext_lazy("The session is not waiting for a QR scan; connect it first.")),
    (InvalidPhoneNumber, gettext_lazy("Invalid phone number: digits only, country code first.")),
    (RateLimited, gettext_lazy("Too many requests; wait a moment and try again.")),
    (EngineUnavailable, gettext_lazy("The session engine is not answering; try again shortly.")),
    (ServiceUnavailable, gettext_lazy("A service is temporarily unreachable; try again in a few seconds.")),
)


def translated(error: ApplicationError) -> str:
    """The refusal as the account area shows it, in the active language."""
    text = gettext(error.message)
    if text != error.message or (get_language() or "en").startswith("en"):
        return text
    for kind, sentence in BY_KIND:
        if isinstance(error, kind):
            return str(sentence)
    return error.message
