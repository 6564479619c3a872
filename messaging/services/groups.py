"""Groups through the engine, mirrored in `Group` rows."""

from __future__ import annotations

from django.db import transaction

from messaging.engines.base import GroupInfo, ParticipantResult
from messaging.models import Group, Session
from messaging.services.engine import engine_errors, engine_for, require_connected


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


@transaction.atomic
def group_create(*, session: Session, subject: str, participants: list[str]) -> GroupInfo:
    require_connected(session)
    with engine_errors():
        info = engine_for(session).group_create(str(session.pk), subject, participants)
    group_mirror(session, info)
    return info


@transaction.atomic
def group_list(*, session: Session) -> list[GroupInfo]:
    require_connected(session)
    with engine_errors():
        groups = engine_for(session).group_list(str(session.pk))
    for info in groups:
        group_mirror(session, info)
    session.groups.exclude(jid__in=[g.jid for g in groups]).update(is_member=False)
    return groups


@transaction.atomic
def group_leave(*, session: Session, group_jid: str) -> None:
    require_connected(session)
    with engine_errors():
        engine_for(session).group_leave(str(session.pk), group_jid)
    session.groups.filter(jid=group_jid).update(is_member=False)


@transaction.atomic
def group_participants_change(
    *, session: Session, group_jid: str, participants: list[str], promote: bool
) -> list[ParticipantResult]:
    require_connected(session)
    engine = engine_for(session)
    with engine_errors():
        if promote:
            results = engine.group_promote(str(session.pk), group_jid, participants)
        else:
            results = engine.group_demote(str(session.pk), group_jid, participants)
    group = session.groups.filter(jid=group_jid).first()
    if group is not None:
        changed = {r.jid for r in results if r.status in ("promoted", "demoted")}
        group.participants = [
            {**p, "admin": promote} if p["jid"] in changed else p for p in group.participants
        ]
        group.save(update_fields=["participants", "updated_at"])
    return results
