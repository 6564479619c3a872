"""The sandbox's groups: create, list, leave, promote and demote, with the group events they report.

A mixin of SandboxEngine, kept apart so each module stays small; it uses the engine's device and id
helpers (`_paired`) and reports typed events like every other engine method.
"""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.utils import timezone

from messaging.addressing import group_suffix
from messaging.engines.base import EngineNotAllowed, EngineNotFound, GroupInfo, Participant, ParticipantResult
from messaging.engines.events import GroupChange, GroupJoinEvent, GroupLeaveEvent, Member
from messaging.models import SandboxDevice, SandboxGroup


def sandbox_digest(*parts: object) -> bytes:
    """The sandbox's deterministic bytes: codes and ids derive from these, never from randomness."""
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()


def _members(group: SandboxGroup) -> list[tuple[str, bool]]:
    """Admins first, then by JID: a stable order (PostgreSQL's jsonb does not keep key order)."""
    return sorted(((j, bool(a)) for j, a in group.participants.items()), key=lambda m: (not m[1], m[0]))


class SandboxGroups:
    def _own_group(self, device: SandboxDevice, group_jid: str) -> SandboxGroup:
        group = device.groups.filter(jid=group_jid).first()
        if group is None or device.jid not in group.participants:
            raise EngineNotFound(f"The session is not in group {group_jid}.", kind="group")
        return group

    def _require_admin(self, device: SandboxDevice, group: SandboxGroup) -> None:
        if not group.participants.get(device.jid):
            raise EngineNotAllowed(f"The session is not an admin of group {group.jid}.")

    @staticmethod
    def _info(group: SandboxGroup) -> GroupInfo:
        return GroupInfo(
            jid=group.jid,
            subject=group.subject,
            subject_time=group.subject_time,
            creation=group.creation,
            owner=group.owner,
            participants=tuple(Participant(jid=j, admin=a) for j, a in _members(group)),
            description=group.description,
            announce=group.announce,
            locked=group.locked,
        )

    # --- groups -----------------------------------------------------------------------------------

    @transaction.atomic
    def group_create(self, session_id: str, subject: str, participants: list[str]) -> GroupInfo:
        device = self._paired(session_id)
        device.message_serial += 1
        device.save(update_fields=["message_serial"])
        number = int(sandbox_digest("group", session_id, device.message_serial).hex(), 16) % 10**12
        now = int(timezone.now().timestamp())
        members = {device.jid: True, **{jid: False for jid in participants if jid != device.jid}}
        group = SandboxGroup.objects.create(
            device=device,
            jid=f"120363{number:012d}@{group_suffix()}",
            subject=subject,
            subject_time=now,
            creation=now,
            owner=device.jid,
            participants=members,
        )
        info = self._info(group)
        self.report(str(session_id), self._group_event(GroupJoinEvent, group, list(members), device.jid))
        return info

    @staticmethod
    def _group_event(
        kind: type[GroupChange], group: SandboxGroup, participants: list[str], by: str, timestamp: int = 0
    ) -> GroupChange:
        return kind(
            group=group.jid,
            subject=group.subject,
            subject_time=group.subject_time,
            creation=group.creation,
            owner=group.owner,
            participants=tuple(participants),
            by=by,
            members=tuple(Member(jid=j, admin=a) for j, a in _members(group)),
            timestamp=timestamp,
        )

    @transaction.atomic
    def group_list(self, session_id: str) -> list[GroupInfo]:
        device = self._paired(session_id)
        groups = device.groups.order_by("subject", "jid")
        return [self._info(g) for g in groups if device.jid in g.participants]

    @transaction.atomic
    def group_leave(self, session_id: str, group_jid: str) -> None:
        device = self._paired(session_id)
        group = self._own_group(device, group_jid)
        group.participants.pop(device.jid, None)
        group.save(update_fields=["participants"])
        self.report(str(session_id), self._group_event(GroupLeaveEvent, group, [device.jid], device.jid))

    def _change_admins(
        self, session_id: str, group_jid: str, participants: list[str], admin: bool
    ) -> list[ParticipantResult]:
        device = self._paired(session_id)
        group = self._own_group(device, group_jid)
        self._require_admin(device, group)
        done = "promoted" if admin else "demoted"
        results = []
        for jid in participants:
            if jid not in group.participants:
                results.append(ParticipantResult(jid=jid, status="not_a_participant"))
            elif jid == group.owner and not admin:
                results.append(ParticipantResult(jid=jid, status="not_allowed"))
            else:
                group.participants[jid] = admin
                results.append(ParticipantResult(jid=jid, status=done))
        group.save(update_fields=["participants"])
        return results

    @transaction.atomic
    def group_promote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._change_admins(session_id, group_jid, participants, True)

    @transaction.atomic
    def group_demote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._change_admins(session_id, group_jid, participants, False)
