"""Group administration through the engine: participants added and removed, subject, description,
settings, invite links and joining by invite; the `Group` rows follow what the engine answers.

What the engine reports while doing it (`group_join`, `group_leave`, `group_update` with what changed)
is recorded and emitted by messaging.services.events (by the engine process itself for an engine over
the bus). An engine reached over a network is asked in no transaction, and its answer mirrored in a
short transaction of the service's own (docs/decisions/0021); a local engine's call (the sandbox's) and
its record are one transaction.
"""

from __future__ import annotations

from messaging.engines.base import EngineNotFound, GroupInfo, GroupInvite, ParticipantResult
from messaging.errors import InviteNotFound
from messaging.models import Session
from messaging.services.engine import engine_errors, engine_for, engine_unit, require_connected
from messaging.services.groups import groups_record


def group_participants_update(
    *, session: Session, group_jid: str, participants: list[str], add: bool
) -> list[ParticipantResult]:
    """Add (`add`) or remove participants; one status per participant. Admins only (403)."""
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine), engine_errors():
        if add:
            return engine.group_participants_add(str(session.pk), group_jid, participants)
        return engine.group_participants_remove(str(session.pk), group_jid, participants)


def group_subject_set(*, session: Session, group_jid: str, subject: str) -> GroupInfo:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            info = engine.group_set_subject(str(session.pk), group_jid, subject)
        groups_record(session, [info])
    return info


def group_description_set(*, session: Session, group_jid: str, description: str) -> GroupInfo:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            info = engine.group_set_description(str(session.pk), group_jid, description)
        groups_record(session, [info])
    return info


def group_settings_set(
    *, session: Session, group_jid: str, announce: bool | None, locked: bool | None
) -> GroupInfo:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            info = engine.group_set_settings(str(session.pk), group_jid, announce, locked)
        groups_record(session, [info])
    return info


def group_invite_get(*, session: Session, group_jid: str, revoke: bool = False) -> GroupInvite:
    """The group's invite code and link (admins only); `revoke` replaces the code."""
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine), engine_errors():
        return engine.group_invite(str(session.pk), group_jid, revoke)


def group_join(*, session: Session, code: str) -> GroupInfo:
    """Join by invite code: the group record; 404 INVITE_NOT_FOUND for an unknown or revoked code."""
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            try:
                info = engine.group_join(str(session.pk), code)
            except EngineNotFound as exc:
                if exc.kind != "invite":
                    raise
                raise InviteNotFound(str(exc)) from exc
        groups_record(session, [info])
    return info
