"""API keys in the account area: issue (the key shown once), list, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.models import Account, ApiKey
from accounts.services import api_key_create, api_key_revoke
from core.errors import ApplicationError
from portal.common import account_required, form_error
from portal.forms import KeyForm


def session_choices(account: Account) -> list[tuple[str, str]]:
    return [(str(s.pk), f"{s.name} ({s.pk})") for s in account.sessions.order_by("created_at")]


@account_required
def key_list(request: HttpRequest, account: Account) -> HttpResponse:
    form = KeyForm(request.POST or None, sessions=session_choices(account))
    if request.method == "POST" and form.is_valid():
        try:
            key, plaintext = api_key_create(
                account=account,
                role=form.cleaned_data["role"],
                name=form.cleaned_data["name"],
                expires_at=form.expires_at(),
                allowed_ips=form.cleaned_data["allowed_ips"],
                allowed_sessions=form.cleaned_data["allowed_sessions"],
            )
        except ApplicationError as error:
            form_error(form, error)
        else:
            return _key_issued(request, account, key, plaintext)
    return _page(request, account, form, status=400 if form.errors else 200)


def _page(
    request: HttpRequest, account: Account, form: KeyForm, *, status: int = 200, new_key: dict | None = None
) -> HttpResponse:
    context = {
        "form": form,
        "keys": account.api_keys.all(),
        "new_key": new_key,
        "sessions": dict(session_choices(account)),
    }
    return render(request, "portal/keys.html", context, status=status)


def _key_issued(request: HttpRequest, account: Account, key: ApiKey, plaintext: str) -> HttpResponse:
    """The new key is shown in the reply to the POST that issued it and kept nowhere: not in the
    session (a row a database dump would show) nor in a message cookie. The page turns its own history
    entry into a GET, so a reload lists the keys instead of issuing another, and no cache keeps it."""
    form = KeyForm(sessions=session_choices(account))
    response = _page(request, account, form, new_key={"id": key.pk, "plaintext": plaintext})
    add_never_cache_headers(response)
    return response


@require_POST
@account_required
def key_revoke(request: HttpRequest, account: Account, key_id: int) -> HttpResponse:
    key = get_object_or_404(ApiKey, pk=key_id, account=account)
    api_key_revoke(key=key)
    messages.success(
        request, gettext("Key %(prefix)s… revoked: it stops working at once.") % {"prefix": key.prefix}
    )
    return redirect("account:keys")
