"""Messaging sessions in the account area: list, create, connect with a live QR code, pairing code,
logout, delete. Every action calls the same `messaging.services.sessions` function as the REST API."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from accounts.models import Account
from core.errors import ApplicationError
from core.timefmt import local_time_text
from messaging.models import Session
from messaging.qr import qr_data_uri
from messaging.services import sessions as services
from portal import chats
from portal.common import account_required, form_error
from portal.forms import PairingCodeForm, SessionForm
from portal.refusals import translated


def _own_session(account: Account, session_id: str) -> Session:
    return get_object_or_404(Session, pk=session_id, account=account)


def _is_sandbox(session: Session) -> bool:
    return services.session_engine_label(session) == "sandbox"


@account_required
def session_list(request: HttpRequest, account: Account) -> HttpResponse:
    form = SessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            session = services.session_create(account=account, name=form.cleaned_data["name"])
        except ApplicationError as error:
            form_error(form, error)
        else:
            messages.success(
                request,
                gettext("Session '%(name)s' created. Connect it to pair a phone.") % {"name": session.name},
            )
            return _instance_key_shown(request, session)
    context = {"form": form, "sessions": account.sessions.order_by("created_at"), "plan": account.plan}
    return render(request, "portal/sessions.html", context, status=400 if form.errors else 200)


def _session_page(
    request: HttpRequest, session: Session, *, status: int = 200, **extra: object
) -> HttpResponse:
    context = {"session": session, "pairing_form": PairingCodeForm(), "sandbox": _is_sandbox(session)}
    wanted = request.GET.get("chats", "")
    chat_filter = wanted if wanted in chats.FILTERS else ""
    context.update(
        chats=chats.chat_rows(session, chat_filter), chat_filters=chats.FILTERS, chat_filter=chat_filter
    )
    context.update(extra)
    return render(request, "portal/session.html", context, status=status)


def _instance_key_shown(request: HttpRequest, session: Session) -> HttpResponse:
    """The session's instance key in clear, in the reply to the POST that issued it and kept nowhere else
    (as portal.keys does for API keys): the page turns its history entry into a GET of the session
    page, so a reload shows the prefix only, and no cache keeps the reply."""
    response = _session_page(request, session, new_instance_key=session.instance_key)
    add_never_cache_headers(response)
    return response


@account_required
def session_detail(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    return _session_page(request, _own_session(account, session_id))


@require_POST
@account_required
def session_instance_key(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    """A new instance key (the old one stops working), through the service the API and the admin use."""
    session = services.session_instance_key_regenerate(session=_own_session(account, session_id))
    messages.success(request, gettext("New instance key issued: the old one no longer works."))
    return _instance_key_shown(request, session)


def _act(request: HttpRequest, session: Session, action: Callable[[], object], done: str) -> HttpResponse:
    try:
        action()
    except ApplicationError as error:
        messages.error(request, translated(error))
    else:
        messages.success(request, done)
    return redirect("account:session", session_id=session.pk)


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_POST
@account_required
def session_connect(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    session = _own_session(account, session_id)
    done = gettext("Scan the QR code below.")
    return _act(request, session, lambda: services.session_connect(session=session), done)


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_POST
@account_required
def session_logout(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    session = _own_session(account, session_id)
    return _act(request, session, lambda: services.session_logout(session=session), gettext("Logged out."))


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_POST
@account_required
def session_scan(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    """Sandbox sessions only: play the phone scanning the code, as POST /api/sandbox/…/scan does."""
    session = _own_session(account, session_id)
    if not _is_sandbox(session):
        messages.error(request, gettext("Only sandbox sessions can be paired without a phone."))
        return redirect("account:session", session_id=session.pk)
    done = gettext("Paired (sandbox phone).")
    return _act(request, session, lambda: services.sandbox_scan(session=session), done)


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_POST
@account_required
def session_delete(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    session = _own_session(account, session_id)
    try:
        services.session_delete(session=session)
    except ApplicationError as error:
        messages.error(request, translated(error))
        return redirect("account:session", session_id=session.pk)
    messages.success(request, gettext("Session '%(name)s' deleted.") % {"name": session.name})
    return redirect("account:sessions")


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_POST
@account_required
def session_pairing_code(request: HttpRequest, account: Account, session_id: str) -> HttpResponse:
    session = _own_session(account, session_id)
    form = PairingCodeForm(request.POST)
    code = None
    if form.is_valid():
        try:
            code = services.session_pairing_code(session=session, phone=form.cleaned_data["phone"])
        except ApplicationError as error:
            form_error(form, error)
    session.refresh_from_db()
    return _session_page(
        request, session, status=400 if form.errors else 200, pairing_form=form, pairing=code
    )


@transaction.non_atomic_requests  # the engine is asked in no transaction (docs/decisions/0021)
@require_GET
@account_required
def session_qr(request: HttpRequest, account: Account, session_id: str) -> JsonResponse:
    """The page polls this: the code to scan now (an expired one is replaced), or the new status."""
    session = _own_session(account, session_id)
    if session.status != Session.Status.QR:
        return JsonResponse({"status": session.status, "phone": session.phone})
    try:
        qr = services.session_qr(session=session)
    except ApplicationError as error:
        return JsonResponse({"status": session.status, "error": translated(error)}, status=error.status_code)
    return JsonResponse(
        {
            "status": Session.Status.QR,
            "code": qr.code,
            "image": qr_data_uri(qr.code),
            "expiresAt": qr.expires_at.isoformat(),
            "expiresAtText": local_time_text(qr.expires_at),  # as every time on the pages reads
        }
    )
