"""The landing page (`/`) and the account overview: plan, limits, today's usage, bonds access."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.models import Account, Subscription
from accounts.ratelimit import plan_rate, usage_hit
from accounts.services import bonds_subscription_request
from core.errors import Conflict
from messaging.services.quota import messages_sent_today
from portal.common import account_required
from webhooks.models import Webhook
from webhooks.registered.selectors import webhooks_disabled


def landing(request: HttpRequest) -> HttpResponse:
    base = request.build_absolute_uri("/").rstrip("/")
    return render(request, "landing.html", {"base": base, "mcp_url": f"{base}/bonds/mcp"})


@dataclass(frozen=True)
class Meter:
    label: str
    used: int
    limit: int | None  # None: unlimited

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used / self.limit)) if self.limit else 0


def _busiest_key_this_minute(request: HttpRequest, account: Account) -> int:
    """Calls in the current minute of the account's busiest key (the limit applies per key)."""
    busiest = 0
    for key in account.api_keys.filter(revoked_at__isnull=True).select_related("account__plan"):
        usage = usage_hit(
            request, group="plan", subject=f"key:{key.pk}", rate=plan_rate(key), increment=False
        )
        if usage is not None:
            busiest = max(busiest, usage.limit - usage.remaining)
    return busiest


def usage_meters(request: HttpRequest, account: Account) -> list[Meter]:
    plan = account.plan
    return [
        Meter(
            gettext("Requests this minute (busiest key)"),
            _busiest_key_this_minute(request, account),
            plan.requests_per_minute,
        ),
        Meter(gettext("Messages sent today"), messages_sent_today(account), plan.messages_per_day),
        Meter(gettext("Sessions"), account.sessions.count(), plan.max_active_sessions),
        Meter(gettext("Webhooks"), Webhook.objects.filter(account=account).count(), plan.max_webhooks),
    ]


def bonds_access(account: Account) -> str:
    """The bonds subscription state, in words, in the active language (its date in that language's
    format; no_subscription and payment_issue are the API's statuses, kept as they are)."""
    subscription = account.subscriptions.filter(product=Subscription.Product.BONDS).first()
    if subscription is None:
        return gettext(
            "No bonds subscription: keys of this account get the 5-bond preview (status no_subscription)."
        )
    ends = subscription.current_period_end
    if subscription.status == Subscription.Status.ACTIVE:
        if ends is None:
            return gettext("Active: keys of this account list every bond.")
        day = date_format(timezone.localtime(ends), "SHORT_DATE_FORMAT")
        return gettext("Active until %(day)s: keys of this account list every bond.") % {"day": day}
    return {
        Subscription.Status.PAST_DUE: gettext(
            "Payment pending: bond lists answer payment_issue until it is settled."
        ),
        Subscription.Status.CANCELED: gettext("Canceled: bond lists answer no_subscription."),
        Subscription.Status.REQUESTED: gettext(
            "Requested, pending approval by Ponte's staff: until then bond lists answer no_subscription."
        ),
    }.get(subscription.status, subscription.get_status_display())


def _bonds_status(account: Account) -> str | None:
    return (
        account.subscriptions.filter(product=Subscription.Product.BONDS)
        .values_list("status", flat=True)
        .first()
    )


@require_POST
@account_required
def bonds_request(request: HttpRequest, account: Account) -> HttpResponse:
    try:
        bonds_subscription_request(account=account)
    except Conflict:
        messages.error(request, gettext("This account's bonds subscription needs no request."))
    else:
        messages.success(
            request, gettext("Bonds subscription requested: Ponte's staff will approve it shortly.")
        )
    return redirect("account:home")


@account_required
def overview(request: HttpRequest, account: Account) -> HttpResponse:
    context = {
        "account": account,
        "plan": account.plan,
        "meters": usage_meters(request, account),
        "bonds_access": bonds_access(account),
        "bonds_requestable": _bonds_status(account) in {None, Subscription.Status.CANCELED},
        "base": settings.PONTE_BASE_URL,
        "disabled_webhooks": webhooks_disabled(account_id=account.pk),
    }
    return render(request, "portal/home.html", context)
