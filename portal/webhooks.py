"""Registered webhooks in the account area: create, edit, delete, the delivery log with its attempts,
and resending the account's own dead letters (the service the admin's resend calls)."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from accounts.models import Account
from core.errors import ApplicationError
from portal.common import account_required, form_error
from portal.forms import WebhookForm
from portal.keys import session_choices
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.outbox.deliveries import deliveries_resend
from webhooks.registered import selectors, services
from webhooks.registered.filters import DeliveryFilterSet

DELIVERIES_SHOWN = 100


@account_required
def webhook_list(request: HttpRequest, account: Account) -> HttpResponse:
    form = WebhookForm(request.POST or None, sessions=session_choices(account))
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        try:
            webhook = services.webhook_create(
                account=account,
                session_id=values["session"],
                url=values["url"],
                events=values["events"],
                secret=values["secret"],
                retry_count=values["retry_count"],
            )
        except ApplicationError as error:
            form_error(form, error)
        else:
            messages.success(request, gettext("Webhook %(id)s created.") % {"id": webhook.id})
            return redirect("account:webhooks")
    webhooks = list(Webhook.objects.filter(account=account).select_related("session"))
    cap = account.plan.max_webhooks
    context = {
        "form": form,
        "webhooks": webhooks,
        "plan": account.plan,
        # The cap is said before the form, and a full plan shows why instead of a form that can only fail.
        "at_cap": cap is not None and len(webhooks) >= cap,
        "disabled_webhooks": selectors.webhooks_disabled(account_id=account.pk),
    }
    return render(request, "portal/webhooks.html", context, status=400 if form.errors else 200)


@account_required
def webhook_edit(request: HttpRequest, account: Account, webhook_id: str) -> HttpResponse:
    webhook = get_object_or_404(Webhook, pk=webhook_id, account=account)
    initial = {"url": webhook.url, "events": webhook.events, "retry_count": webhook.retry_count}
    form = WebhookForm(request.POST or None, initial=initial, sessions=[], editing=True)
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        changes = {"url": values["url"], "events": values["events"], "retry_count": values["retry_count"]}
        if values["secret"]:
            changes["secret"] = values["secret"]
        try:
            services.webhook_update(webhook=webhook, **changes)
        except ApplicationError as error:
            form_error(form, error)
        else:
            messages.success(request, gettext("Webhook %(id)s saved.") % {"id": webhook.id})
            return redirect("account:webhooks")
    context = {"form": form, "webhook": webhook}
    return render(request, "portal/webhook_edit.html", context, status=400 if form.errors else 200)


@require_POST
@account_required
def webhook_delete(request: HttpRequest, account: Account, webhook_id: str) -> HttpResponse:
    webhook = get_object_or_404(Webhook, pk=webhook_id, account=account)
    services.webhook_delete(webhook=webhook)
    messages.success(
        request,
        gettext("Webhook %(id)s deleted; its waiting deliveries became dead letters.") % {"id": webhook_id},
    )
    return redirect("account:webhooks")


@require_POST
@account_required
def webhook_enable(request: HttpRequest, account: Account, webhook_id: str) -> HttpResponse:
    """Enable a disabled webhook again (the banner's button), as PATCH {"status": "active"} does."""
    webhook = get_object_or_404(Webhook, pk=webhook_id, account=account)
    services.webhook_update(webhook=webhook, status=Webhook.Status.ACTIVE)
    messages.success(
        request,
        gettext(
            "Webhook %(id)s enabled; the events kept while it was disabled are on their way. Resend its "
            "dead letters from the delivery log."
        )
        % {"id": webhook_id},
    )
    return redirect("account:webhooks")


def _own_deliveries(account: Account):
    return Delivery.objects.filter(session__account=account)


@account_required
def delivery_list(request: HttpRequest, account: Account) -> HttpResponse:
    status = request.GET.get("status", "")
    deliveries = DeliveryFilterSet(
        data=request.GET, queryset=_own_deliveries(account).select_related("event", "webhook")
    ).qs
    attempts = Prefetch("attempts", queryset=DeliveryAttempt.objects.order_by("number"))
    context = {
        "deliveries": deliveries.prefetch_related(attempts)[:DELIVERIES_SHOWN],
        "status": status,
        "statuses": Delivery.Status.choices,
        "shown": DELIVERIES_SHOWN,
    }
    return render(request, "portal/deliveries.html", context)


@require_POST
@account_required
def delivery_resend(request: HttpRequest, account: Account) -> HttpResponse:
    """Resend the ticked dead letters of this account; ids of other accounts are simply not found."""
    ids = [value for value in request.POST.getlist("delivery") if value.isdigit()]
    if not ids:
        messages.warning(request, gettext("Nothing was resent: tick the dead letters to resend first."))
        return redirect("account:deliveries")
    chosen = _own_deliveries(account).filter(pk__in=ids, status=Delivery.Status.DEAD)
    queued, _ = deliveries_resend(deliveries=chosen, requested_by=request.user)
    if queued:
        text = ngettext(
            "Resending %(count)d dead letter, with its original webhook-id.",
            "Resending %(count)d dead letters, with their original webhook-id.",
            queued,
        )
        messages.success(request, text % {"count": queued})
    if queued < len(ids):
        missed = len(ids) - queued
        text = ngettext(
            "%(count)d could not be resent: not a dead letter, or its webhook was deleted.",
            "%(count)d could not be resent: not dead letters, or their webhook was deleted.",
            missed,
        )
        messages.warning(request, text % {"count": missed})
    return redirect("account:deliveries")
