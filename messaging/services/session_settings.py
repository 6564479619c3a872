"""A session's settings (`GET/PUT /api/sessions/{id}/settings`): stored, then handed to the engine for
what takes effect at once (`alwaysOnline`); the rest the engines read where it applies
(messaging.engines.behaviour).

Official channels do what the Graph API allows: `readMessages` (the channel marks each inbound message
read) and `ignoreGroups` (they have no groups: nothing to ignore); `rejectCalls`, `alwaysOnline` and
`syncFullHistory` have no Graph API equivalent, so turning them on answers 400 OPERATION_NOT_SUPPORTED.
"""

from __future__ import annotations

import dataclasses

from django.db import transaction

from messaging.engines.behaviour import behaviour_of
from messaging.errors import OperationNotSupported
from messaging.models import Session, SessionSettings
from messaging.services.engine import engine_errors, engine_for, engine_unit
from messaging.values import SessionBehaviour


def session_settings_get(*, session: Session) -> SessionBehaviour:
    return behaviour_of(str(session.pk))


def session_settings_update(*, session: Session, changes: dict[str, object]) -> SessionBehaviour:
    """Apply `changes` (snake_case fields of SessionBehaviour; those left out keep their value). Stored
    first, in a short transaction committed before an engine over a network is asked (it reads the
    stored settings where they apply), then handed to the engine in no transaction
    (docs/decisions/0021); a failed call leaves them stored, and the engine reads them at its next
    connection."""
    current = behaviour_of(str(session.pk))
    wanted = dataclasses.replace(current, **changes)
    engine = engine_for(session)
    refused = [name for name in engine.unsupported_settings if getattr(wanted, name)]
    if refused:
        names = ", ".join(_camel(n) for n in refused)
        raise OperationNotSupported(f"The {session.provider} channel cannot honour {names}.")
    with engine_unit(engine):
        with transaction.atomic(savepoint=False):
            SessionSettings.objects.update_or_create(session=session, defaults=dataclasses.asdict(wanted))
        if session.status == Session.Status.CONNECTED:
            with engine_errors():
                engine.settings_apply(str(session.pk), wanted)
    return wanted


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)
