"""What every page of the account area shares: the signed-in customer's account, and service errors
shown on forms."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import Account
from core.errors import ApplicationError
from portal.refusals import translated

AccountView = Callable[..., HttpResponse]


def account_of(request: HttpRequest) -> Account | None:
    return Account.objects.select_related("plan").filter(user=request.user, is_active=True).first()


def account_required(view: AccountView) -> Callable[..., HttpResponse]:
    """Sign-in required; the view gets the customer's own account as its second argument, so every
    lookup it makes can be scoped to that account. A user with no account (staff) is told so."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        account = account_of(request)
        if account is None:
            return render(request, "portal/no_account.html", status=403)
        return view(request, account, *args, **kwargs)

    return wrapped


def form_error(form: forms.Form, error: ApplicationError) -> None:
    """Show a service's refusal on the form: on the field its message starts with (`url must…`,
    `retryCount: …`), else above the form."""
    first = error.message.split(" ", 1)[0].rstrip(":")
    field = {"retryCount": "retry_count", "sessionId": "session"}.get(first, first)
    form.add_error(field if field in form.fields else None, translated(error))
