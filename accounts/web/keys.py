"""API keys in the account area: issue (the key shown once), list, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.models import Account, ApiKey
from accounts.services import api_key_create, api_key_revoke
from accounts.web.common import account_required, form_error
from accounts.web.forms import KeyForm
from config.errors import ApplicationError

# The new key waits in the server-side session for the one page that shows it, then is gone.
_NEW_KEY = "account:new-key"


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
            request.session[_NEW_KEY] = {"id": key.pk, "plaintext": plaintext}
            return redirect("account:keys")
    new_key = request.session.pop(_NEW_KEY, None)
    context = {
        "form": form,
        "keys": account.api_keys.all(),
        "new_key": new_key,
        "sessions": dict(session_choices(account)),
    }
    return render(request, "account/keys.html", context, status=400 if form.errors else 200)


@require_POST
@account_required
def key_revoke(request: HttpRequest, account: Account, key_id: int) -> HttpResponse:
    key = get_object_or_404(ApiKey, pk=key_id, account=account)
    api_key_revoke(key=key)
    messages.success(request, f"Key {key.prefix}… revoked: it stops working at once.")
    return redirect("account:keys")
