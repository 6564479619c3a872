"""Groups through the engine, mirrored in `Group` rows.

An engine reached over a network (an engine process over the bus) is asked in no transaction; its answer
is then mirrored in a short transaction of the service's own (docs/decisions/0021). A local engine (the
sandbox) is asked and recorded in one transaction, its call being work on this database."""

from __future__ import annotations

from django.db import transaction

from messaging.engines.base import GroupInfo, ParticipantResult
from messaging.models import Group, Session
from messaging.services.engine import (
    engine_errors,
    engine_for,
    engine_unit,
    require_connected,
    session_lock,
)


def group_mirror(session: Session, info: GroupInfo) -> Group:
    """The group as the engine answered, in its `Group` row (with description and settings)."""
    group, _ = Group.objects.update_or_create(
        session=session,
        jid=info.jid,
        defaults={
            "subject": info.subject,
            "subject_time": info.subject_time,
            "creation": info.creation,
            "owner": info.owner,
            "participants": [{"jid": p.jid, "admin": p.admin} for p in info.participants],
            "is_member": True,
            "description": info.description,
            "announce": info.announce,
            "locked": info.locked,
        },
    )
    return group


def group_create(*, session: Session, subject: str, participants: list[str]) -> GroupInfo:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            info = engine.group_create(str(session.pk), subject, participants)
        groups_record(session, [info])
    return info


def group_list(*, session: Session) -> list[GroupInfo]:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            groups = engine.group_list(str(session.pk))
        groups_record(session, groups, complete=True)
    return groups


def group_leave(*, session: Session, group_jid: str) -> None:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            engine.group_leave(str(session.pk), group_jid)
        session.groups.filter(jid=group_jid).update(is_member=False)


def group_participants_change(
    *, session: Session, group_jid: str, participants: list[str], promote: bool
) -> list[ParticipantResult]:
    require_connected(session)
    engine = engine_for(session)
    with engine_unit(engine):
        with engine_errors():
            if promote:
                results = engine.group_promote(str(session.pk), group_jid, participants)
            else:
                results = engine.group_demote(str(session.pk), group_jid, participants)
        changed = {r.jid for r in results if r.status in ("promoted", "demoted")}
        with transaction.atomic(savepoint=False):
            # The row locked for the write only: the engine process may have recorded a group update
            # meanwhile; a group not mirrored (or gone with its session) has nothing to change.
            group = session.groups.select_for_update().filter(jid=group_jid).first()
            if group is not None:
                group.participants = [
                    {**p, "admin": promote} if p["jid"] in changed else p for p in group.participants
                ]
                group.save(update_fields=["participants", "updated_at"])
    return results


def groups_record(session: Session, groups: list[GroupInfo], *, complete: bool = False) -> None:
    """The engine's answer in the `Group` rows, in a short transaction under the session's lock (none
    to write when the session was deleted while the engine was asked). `complete`: `groups` are all the
    session's groups, so the others are marked left."""
    with transaction.atomic(savepoint=False):
        if session_lock(session):
            for info in groups:
                group_mirror(session, info)
            if complete:
                session.groups.exclude(jid__in=[g.jid for g in groups]).update(is_member=False)
