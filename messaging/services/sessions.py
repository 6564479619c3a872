"""Session lifecycle: create, delete, connect, QR, pairing code, logout, and the sandbox's scan/inject."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.errors import PlanLimitReached
from accounts.models import Account
from core.errors import Conflict
from messaging.engines import NotAnEngine, engine_class
from messaging.engines.base import Engine, EngineNotAllowed, PairingCode, QrCode
from messaging.errors import OperationNotSupported, SessionNotFound, SessionNotInQrState
from messaging.media import media_forget
from messaging.models import Session
from messaging.services.engine import (
    engine_errors,
    engine_for,
    engine_unit,
    get_engine,
    require_connected,
    session_reread,
)
from messaging.services.events import event_record


@dataclass(frozen=True)
class ConnectOutcome:
    session: Session
    qr: QrCode | None
    message: str


@transaction.atomic
def session_create(
    *, account: Account, name: str, proxy: str = "", provider: str = "whatsapp", engine: str = ""
) -> Session:
    """Create a disconnected session, within the plan's session cap (sessions that exist count).
    Official channels (messaging.channels.services.channel_session_create) pass their provider and engine;
    WhatsApp sessions may name a `proxy` for their connection."""
    # Lock the account row so two concurrent creates cannot both pass the cap.
    account = Account.objects.select_for_update().select_related("plan").get(pk=account.pk)
    cap = account.plan.max_active_sessions
    existing = account.sessions.count()
    if cap is not None and existing >= cap:
        raise PlanLimitReached(
            f"The {account.plan.name} plan allows {cap} {'session' if cap == 1 else 'sessions'} and this "
            f"account has {existing}; "
            "delete one or upgrade the plan.",
            extra={"limit": cap},
        )
    return Session.objects.create(
        account=account,
        name=name,
        proxy=proxy,
        provider=provider,
        official=provider != "whatsapp",
        engine=engine,
    )


@transaction.atomic
def session_instance_key_regenerate(*, session: Session) -> Session:
    """Issue a new instance key; the old one stops working. The returned session carries the new key
    in clear (`instance_key`), the only time it is available."""
    session = Session.objects.select_for_update().get(pk=session.pk)
    session.instance_key_issue()
    session.save(update_fields=["instance_key_prefix", "instance_key_digest", "updated_at"])
    return session


def session_delete(*, session: Session) -> None:
    """Unpair (dropping the engine's state) and delete the session with its history: the engine first,
    in no transaction when it is reached over a network (docs/decisions/0021), then the rows in a short
    transaction (a session deleted meanwhile leaves nothing to delete)."""
    engine = engine_for(session)
    session_id = str(session.pk)
    with engine_unit(engine):
        with engine_errors():
            engine.forget(session_id)
        with transaction.atomic(savepoint=False):
            session.delete()
            transaction.on_commit(lambda: media_forget(session_id))


def _require_pairable(session: Session) -> None:
    """Official channels are connected by their credentials: QR codes and pairing codes do not exist."""
    if session.official:
        raise OperationNotSupported(
            f"Session {session.pk} is an official {session.provider} session: it connects with its "
            "credentials, never by QR code or phone code.",
            extra={"provider": session.provider},
        )


def session_connect(*, session: Session) -> ConnectOutcome:
    """disconnected → qr (a fresh QR code); qr → qr (the current code); connected: a no-op. The engine
    records the session's state itself; an engine over a network is asked in no transaction, then the
    row is read again (docs/decisions/0021)."""
    _require_pairable(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            result = engine.connect(str(session.pk))
        session_reread(session)
    if result.status == Session.Status.CONNECTED:
        return ConnectOutcome(session, None, "Session already connected; nothing to do.")
    return ConnectOutcome(
        session,
        result.qr,
        "Scan the QR code with the phone (Linked devices) before it expires, or request a pairing code.",
    )


def session_qr(*, session: Session) -> QrCode:
    """The code to scan now; an expired code is replaced (and a `qr` event emitted)."""
    _require_pairable(session)
    if session.status != Session.Status.QR:
        raise SessionNotInQrState(
            f"Session {session.pk} is {session.status}; "
            + (
                "call connect first."
                if session.status == Session.Status.DISCONNECTED
                else "it is already paired."
            )
        )
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            try:
                qr = engine.current_qr(str(session.pk))
            except EngineNotAllowed as exc:
                raise SessionNotInQrState(str(exc)) from exc
        session_reread(session)
    return qr


def session_pair(*, session: Session) -> ConnectOutcome:
    """Pairing by QR code in one call: connect when needed, then the current code."""
    _require_pairable(session)
    if session.status == Session.Status.CONNECTED:
        raise Conflict("The session is already paired; log out first to pair another phone.")
    with engine_unit(engine_for(session)):
        outcome = session_connect(session=session)
        return ConnectOutcome(outcome.session, session_qr(session=outcome.session), outcome.message)


def session_pairing_code(*, session: Session, phone: str) -> PairingCode:
    """Pairing by phone number: connect when needed, then a code to type on that phone."""
    _require_pairable(session)
    if session.status == Session.Status.CONNECTED:
        raise Conflict("The session is already paired; log out first to pair another phone.")
    engine = engine_for(session)
    with engine_unit(engine):
        if session.status == Session.Status.DISCONNECTED:
            session_connect(session=session)
        with engine_errors():
            try:
                code = engine.pairing_code(str(session.pk), phone)
            except EngineNotAllowed as exc:
                raise SessionNotInQrState(str(exc)) from exc
        session_reread(session)
    return code


def session_logout(*, session: Session) -> Session:
    """Any state → disconnected; the engine deletes the stored credentials (a new scan is needed)."""
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            engine.logout(str(session.pk))
        session_reread(session)
    return session


def session_restart(*, session: Session) -> Session:
    """Reconnect with the stored credentials, without logging out (after `replaced`, a stream error,
    a network outage). 409 when there is nothing to reconnect with (never paired, or logged out)."""
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            engine.restart(str(session.pk))
        session_reread(session)
    return session


# --- sandbox-only actions: 404 for a session on any other engine ---------------------------------------


def _sandbox_engine(session: Session) -> Engine:
    engine = engine_for(session)
    if not engine.sandbox:
        raise SessionNotFound(f"Session {session.pk} is not a sandbox session.")
    return engine


def session_engine_error(path: str) -> str:
    """Why `path` cannot be a session's engine ("" when it can): the admin refuses such a path, which
    the API would answer with 502."""
    try:
        engine_class(path)
    except NotAnEngine:
        return f"{path!r} is not a messaging engine class."
    except ImportError as exc:
        return f"Cannot import {path!r}: {exc}"
    return ""


def session_engine_label(session: Session) -> str:
    """The label of the session's engine (`sandbox`, `remote`...), for the API and the admin."""
    try:
        return get_engine(session.engine or None).label
    except ImportError:
        return "unavailable"


def sandbox_scan(*, session: Session, phone: str = "", pairing_code: str = "") -> Session:
    """The phone scans the QR code (or types the pairing code): qr → connected."""
    engine = _sandbox_engine(session)
    if session.status != Session.Status.QR:
        raise SessionNotInQrState(
            f"Session {session.pk} is {session.status}; only a session waiting for a scan can be paired."
        )
    with engine_unit(engine):
        with engine_errors():
            try:
                engine.scan(str(session.pk), phone=phone, pairing_code=pairing_code)
            except EngineNotAllowed as exc:
                raise SessionNotInQrState(str(exc)) from exc
        session_reread(session)
    return session


def sandbox_pair(*, session: Session) -> Session:
    """Connect when needed, then scan: what the admin's "scan the QR code" action does."""
    engine = _sandbox_engine(session)
    with engine_unit(engine):
        if session.status == Session.Status.DISCONNECTED:
            session_connect(session=session)
        return sandbox_scan(session=session)


def sandbox_inject(*, session: Session, event: str, data: dict[str, Any]) -> dict[str, Any]:
    """Deliver an inbound event to a connected sandbox session; returns the event data emitted.

    One unit of work without a savepoint of its own (the request's transaction, where there is one; a
    savepoint per event cost two round trips and protected nothing): the engine's `inject`, then the
    events it returned recorded on the session the view read (one read per request)."""
    engine = _sandbox_engine(session)
    require_connected(session)
    with transaction.atomic(savepoint=False):
        with engine_errors():
            injected = engine.inject(str(session.pk), event, data)
        for reported in injected.events:
            event_record(session, reported)
    return injected.data
