"""A failed attempt's error in plain words for customers.

The worker records the transport's own text (`connection error: VettedHTTPConnection(host=…): …
[Errno 111] Connection refused`), which the logs, the admin and staff need as it is. Customers read one
sentence per kind of failure instead (the account area's delivery log). A refusal by the SSRF rules at
connection time and a host name that no longer resolves are one kind on purpose: net.transport reports
both the same way so that a customer cannot use deliveries to probe which names resolve inside Ponte's
network.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy as _

from webhooks.outbox.posting import COULD_NOT_SEND, HEADER_REFUSED, WEBHOOK_DELETED

# (what the recorded error contains, lower-cased; the sentence), first match wins.
_KINDS = (
    (
        "refused target:",
        _(
            "Refused: the receiver's host name did not resolve, or resolved to an address that Ponte's "
            "network rules (SSRF protection) do not allow."
        ),
    ),
    ("timeout while reading", _("Timed out: the receiver did not finish its answer in time.")),
    ("no complete answer", _("Timed out: the receiver did not finish its answer in time.")),
    ("timeout:", _("Timed out: the receiver did not answer in time.")),
    (
        "connection refused",
        _("Connection refused: nothing accepts connections at the receiver's address and port."),
    ),
    (
        "ssl",
        _("TLS error: the secure (https) connection with the receiver failed (certificate or protocol)."),
    ),
    (
        "certificate",
        _("TLS error: the secure (https) connection with the receiver failed (certificate or protocol)."),
    ),
    ("name or service not known", _("DNS failure: the receiver's host name could not be resolved.")),
    ("nodename nor servname", _("DNS failure: the receiver's host name could not be resolved.")),
    ("connection error:", _("Connection failed: the receiver could not be reached.")),
    (
        HEADER_REFUSED,
        _("Not sent: one of the webhook's custom headers is not valid; fix or remove it, then resend."),
    ),
    (COULD_NOT_SEND + ":", _("Not sent: Ponte could not build the request; it is retried.")),
)


def customer_error_text(error: str) -> str:
    """The sentence a customer reads for a recorded delivery error (empty for none)."""
    if not error:
        return ""
    if re.fullmatch(r"HTTP \d{3}", error):  # a status code says what it says
        return error
    if error == WEBHOOK_DELETED:
        return str(_("The webhook was deleted before delivery."))
    lowered = error.lower()
    for needle, sentence in _KINDS:
        if needle in lowered:
            return str(sentence)
    return str(_("The delivery failed."))
