"""Loading a session's engine, calling it, and translating engine exceptions into Ponte's errors.

One engine instance per path (engines are stateless apart from their configuration; state lives in the
database or the engine processes), cached, and the cache is cleared when a test changes the setting.
Every engine built here reports its events to `engine_event_receive` (messaging.services.events).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import cache
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db import transaction
from django.dispatch import receiver

from core.errors import Forbidden, NotFound, RateLimited, ValidationFailed
from messaging.engines import engine_class
from messaging.engines.base import (
    Engine,
    EngineCredentialsRevoked,
    EngineNotAllowed,
    EngineNotConnected,
    EngineNotFound,
    EngineOutsideWindow,
    EngineRateLimited,
    EngineRefused,
    EngineUnavailableError,
    EngineUnsupported,
)
from messaging.engines.outgoing import Outgoing, Sent
from messaging.errors import (
    EngineUnavailable,
    MessageNotFound,
    OperationNotSupported,
    OutsideCustomerWindow,
    SessionNotConnected,
    SessionNotFound,
)
from messaging.models import Session
from messaging.services.events import engine_event_receive

logger = logging.getLogger(__name__)


@cache
def _load(path: str) -> Engine:
    return engine_class(path)(on_event=engine_event_receive)


def get_engine(path: str | None = None) -> Engine:
    """The engine at `path` (default: settings.MESSAGING_ENGINE). Raises ImportError for a bad path."""
    return _load(path or settings.MESSAGING_ENGINE)


def clear_engine_cache() -> None:
    _load.cache_clear()


@receiver(setting_changed)
def _setting_changed(*, setting: str, **kwargs: object) -> None:
    if setting == "MESSAGING_ENGINE":
        clear_engine_cache()


def engine_for(session: Session) -> Engine:
    try:
        return get_engine(session.engine or None)
    except ImportError:
        # The system check (messaging.checks) reports a bad MESSAGING_ENGINE; a bad per-session path
        # set in the admin shows up here.
        logger.exception("Engine %r of session %s cannot be loaded", session.engine_path, session.pk)
        raise EngineUnavailable("The session's engine cannot be loaded; staff have been notified.") from None


@contextmanager
def engine_errors() -> Iterator[None]:
    try:
        yield
    except EngineUnavailableError as exc:
        logger.warning("Engine unavailable: %s", exc)
        raise EngineUnavailable() from exc
    except EngineNotConnected as exc:
        raise SessionNotConnected() from exc
    except EngineNotFound as exc:
        if exc.kind == "message":
            raise MessageNotFound(str(exc)) from exc
        if exc.kind == "session":
            raise SessionNotFound() from exc
        raise NotFound(str(exc)) from exc
    except EngineNotAllowed as exc:
        raise Forbidden(str(exc)) from exc
    except EngineRefused as exc:
        raise ValidationFailed(str(exc)) from exc
    except EngineUnsupported as exc:
        raise OperationNotSupported(str(exc)) from exc
    except EngineRateLimited as exc:
        raise RateLimited(str(exc), retry_after=exc.retry_after) from exc
    except EngineOutsideWindow as exc:
        raise OutsideCustomerWindow(str(exc)) from exc
    except EngineCredentialsRevoked as exc:
        _revoked_record(exc)
        raise SessionNotConnected(
            f"{exc} The session is now disconnected; create it again with valid credentials.",
            extra={"status": Session.Status.DISCONNECTED, "reason": exc.reason},
        ) from exc


def _revoked_record(exc: EngineCredentialsRevoked) -> None:
    """The session's own engine records what a refused token means for it (official channels: the
    session disconnected with the reason), in a transaction of its own: the engine was called outside
    any transaction (net.guard refuses a Graph API call inside one), so it commits whatever the failed
    request does with its own writes, which roll back."""
    session = Session.objects.filter(pk=exc.session_id).first()
    if session is not None:
        with transaction.atomic():
            engine_for(session).credentials_revoked(exc.session_id, exc.reason)


def require_connected(session: Session) -> None:
    """Refuse before the engine is asked: a session that is not paired cannot do anything."""
    if session.status != Session.Status.CONNECTED:
        raise SessionNotConnected(
            f"Session {session.pk} is {session.status}, not connected; "
            "pair it by QR code or phone code first.",
            extra={"status": session.status},
        )


def engine_unit(engine: Engine) -> AbstractContextManager[Any]:
    """Around an engine call and the record of its answer (docs/decisions/0021): one transaction for a
    local engine (the sandbox: its call is work on this database, recorded with it), none for an engine
    reached over a network (an engine process over the bus, the Graph API), whose call then runs in no
    transaction (net.guard refuses it inside one) and whose answer is recorded in a short transaction of
    the service's own (`session_lock`)."""
    return transaction.atomic() if engine.local else nullcontext()


def session_lock(session: Session) -> bool:
    """In the transaction that records an engine's answer: the session's row locked (one session's writes
    in order, as for every reported event); False when the session was deleted while the engine was
    asked, and there is nothing left to record."""
    return (
        Session.objects.select_for_update().filter(pk=session.pk).values_list("pk", flat=True).first()
        is not None
    )


def session_reread(session: Session) -> None:
    """The session's row as the engine left it (its status, its QR code); SessionNotFound (404) when it
    was deleted while the engine was asked."""
    try:
        session.refresh_from_db()
    except Session.DoesNotExist:
        raise SessionNotFound() from None


def engine_send(session: Session, outgoing: Outgoing) -> Sent:
    """The engine's answer to a send that writes no message row of its own (a reaction, a deletion, an
    edit): a local engine (the sandbox, whose work is this database's) in a transaction of its own, an
    engine over a network in none (net.guard); its errors translated once the block is left."""
    engine = engine_for(session)
    with engine_errors(), engine_unit(engine):
        return engine.send(str(session.pk), outgoing)
