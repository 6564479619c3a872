"""Group administration through the engine: participants added and removed, subject, description,
settings, invite links and joining by invite; the `Group` rows follow what the engine answers.

What the engine reports while doing it (`group_join`, `group_leave`, `group_update` with what changed)
is recorded and emitted by messaging.services.events in the same transaction.
"""

from __future__ import annotations

from django.db import transaction

from messaging.engines.base import EngineNotFound, GroupInfo, GroupInvite, ParticipantResult
from messaging.errors import InviteNotFound
from messaging.models import Session
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.groups import group_mirror


@transaction.atomic
def group_participants_update(
    *, session: Session, group_jid: str, participants: list[str], add: bool
) -> list[ParticipantResult]:
    """Add (`add`) or remove participants; one status per participant. Admins only (403)."""
    require_connected(session)
    engine = engine_for(session)
    with engine_errors():
        if add:
            return engine.group_participants_add(str(session.pk), group_jid, participants)
        return engine.group_participants_remove(str(session.pk), group_jid, participants)


@transaction.atomic
def group_subject_set(*, session: Session, group_jid: str, subject: str) -> GroupInfo:
    require_connected(session)
    with engine_errors():
        info = engine_for(session).group_set_subject(str(session.pk), group_jid, subject)
    group_mirror(session, info)
    return info


@transaction.atomic
def group_description_set(*, session: Session, group_jid: str, description: str) -> GroupInfo:
    require_connected(session)
    with engine_errors():
        info = engine_for(session).group_set_description(str(session.pk), group_jid, description)
    group_mirror(session, info)
    return info


@transaction.atomic
def group_settings_set(
    *, session: Session, group_jid: str, announce: bool | None, locked: bool | None
) -> GroupInfo:
    require_connected(session)
    with engine_errors():
        info = engine_for(session).group_set_settings(str(session.pk), group_jid, announce, locked)
    group_mirror(session, info)
    return info


@transaction.atomic
def group_invite_get(*, session: Session, group_jid: str, revoke: bool = False) -> GroupInvite:
    """The group's invite code and link (admins only); `revoke` replaces the code."""
    require_connected(session)
    with engine_errors():
        return engine_for(session).group_invite(str(session.pk), group_jid, revoke)


@transaction.atomic
def group_join(*, session: Session, code: str) -> GroupInfo:
    """Join by invite code: the group record; 404 INVITE_NOT_FOUND for an unknown or revoked code."""
    require_connected(session)
    with engine_errors():
        try:
            info = engine_for(session).group_join(str(session.pk), code)
        except EngineNotFound as exc:
            if exc.kind != "invite":
                raise
            raise InviteNotFound(str(exc)) from exc
    group_mirror(session, info)
    return info
