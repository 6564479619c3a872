"""`response.status` values of the bond list and their descriptions."""

from __future__ import annotations

from django.conf import settings

from core.errors import BONDS_ERROR_STATUSES

OK = "ok"
PREVIEW = "preview"
UNAUTHORIZED = "unauthorized"
NO_SUBSCRIPTION = "no_subscription"
PAYMENT_ISSUE = "payment_issue"
RATE_LIMITED = "rate_limited"
ALL = (OK, PREVIEW, UNAUTHORIZED, NO_SUBSCRIPTION, PAYMENT_ISSUE, RATE_LIMITED)
WITH_BONDS = frozenset({OK, PREVIEW})
# What `response.status` can hold: the statuses above, plus those of a request refused as bad input
# (core.errors renders every error on /bonds/ as HTTP 200 with one of these).
REPLY_STATUSES = tuple(dict.fromkeys((*ALL, *BONDS_ERROR_STATUSES)))


def description(status: str) -> str:
    interval = settings.BONDS_KEY_INTERVAL_SECONDS
    limit = settings.BONDS_PREVIEW_LIMIT
    return {
        OK: "Every active bond that matches your filters, with returns from the latest projections.",
        PREVIEW: (
            f"Preview: at most {limit} bonds. Send an API key of an account with an active bonds "
            "subscription in 'Authorization: Bearer <key>' or '?key=<key>' to see every bond."
        ),
        UNAUTHORIZED: (
            "The API key is unknown, expired or revoked, or may not be used from this address. Check the "
            "key in your account area, or call without a key to get a preview."
        ),
        NO_SUBSCRIPTION: (
            "This key's account has no active bonds subscription. Subscribe to the bonds product in your "
            "account area to see every bond."
        ),
        PAYMENT_ISSUE: (
            "The bonds subscription of this key's account has a pending payment. Settle it in your "
            "account area to restore access."
        ),
        RATE_LIMITED: (
            f"Calls with a key must be at least {interval} seconds apart. Wait {interval} seconds and "
            "call again."
        ),
    }[status]
