"""The sandbox's group administration, contacts' pictures and session settings (a mixin of SandboxEngine).

Rules of the sandbox's "WhatsApp": adding, removing, the settings and the invite
link need the session to be a group admin; the subject and description too once the group is `locked`.
Numbers ending in ``0000`` are not on WhatsApp (`not_on_whatsapp`); the owner and the session itself
cannot be removed (`not_allowed`; the session leaves instead). Invite codes derive from the group and
a counter, so they are deterministic; revoking replaces the code and the old one is unknown at once.
One group is one group: every session of the sandbox in it sees each change (its rows follow, and it
receives the same event). Pictures: numbers ending in ``9`` hide theirs, those not on WhatsApp have
none, the others have one at a URL under the reserved ``.invalid`` domain (never fetched).
"""

from __future__ import annotations

import dataclasses
import string

from django.db import transaction
from django.utils import timezone

from messaging.addressing import is_group
from messaging.engines.base import (
    EngineNotAllowed,
    EngineNotFound,
    GroupInfo,
    GroupInvite,
    ParticipantResult,
)
from messaging.engines.events import GroupChange, GroupJoinEvent, GroupLeaveEvent, GroupUpdateEvent
from messaging.engines.sandbox_groups import sandbox_digest
from messaging.models import SandboxDevice, SandboxGroup

INVITE_URL = "https://chat.whatsapp.com/"
PICTURE_URL = "https://pictures.sandbox.invalid/"
_CODE_ALPHABET = string.ascii_letters + string.digits
# What every session's row of one group shares.
_SHARED = (
    "subject",
    "subject_time",
    "participants",
    "description",
    "announce",
    "locked",
    "invite_code",
    "invite_serial",
)


def invite_url(code: str) -> str:
    return INVITE_URL + code


class SandboxGroupAdmin:
    def _admin_group(self, session_id: str, group_jid: str) -> tuple[SandboxDevice, SandboxGroup]:
        device = self._paired(session_id)
        group = self._own_group(device, group_jid)
        self._require_admin(device, group)
        return device, group

    def _info_editable(self, session_id: str, group_jid: str) -> tuple[SandboxDevice, SandboxGroup]:
        """The group whose subject or description the session changes: anyone, or admins once locked."""
        device = self._paired(session_id)
        group = self._own_group(device, group_jid)
        if group.locked:
            self._require_admin(device, group)
        return device, group

    def _updated(self, device: SandboxDevice, group: SandboxGroup, changed: list[str]) -> None:
        event = self._group_event(GroupUpdateEvent, group, [], device.jid, int(timezone.now().timestamp()))
        extra = {"changed": tuple(changed)}
        if "description" in changed:
            extra["description"] = group.description
        if "announce" in changed or "locked" in changed:
            extra.update(announce=group.announce, locked=group.locked)
        self._share(group, dataclasses.replace(event, **extra))

    def _share(self, group: SandboxGroup, event: GroupChange | None = None) -> None:
        """The change of `group` reaches every sandbox session in it: their rows follow, and each (the
        session that made it first) receives `event`."""
        if event is not None:
            self.report(str(group.device.session_id), event)
        others = SandboxGroup.objects.filter(jid=group.jid).exclude(pk=group.pk).select_related("device")
        for row in others:
            for name in _SHARED:
                setattr(row, name, getattr(group, name))
            row.save(update_fields=list(_SHARED))
            if event is not None:
                self.report(str(row.device.session_id), event)

    # --- participants -------------------------------------------------------------------------------

    @transaction.atomic
    def group_participants_add(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        device, group = self._admin_group(session_id, group_jid)
        results, added = [], []
        for jid in participants:
            if jid in group.participants:
                results.append(ParticipantResult(jid=jid, status="already_a_participant"))
            elif jid.partition("@")[0].endswith("0000"):
                results.append(ParticipantResult(jid=jid, status="not_on_whatsapp"))
            else:
                group.participants[jid] = False
                added.append(jid)
                results.append(ParticipantResult(jid=jid, status="added"))
        if added:
            group.save(update_fields=["participants"])
            now = int(timezone.now().timestamp())
            self._share(group, self._group_event(GroupJoinEvent, group, added, device.jid, now))
        return results

    @transaction.atomic
    def group_participants_remove(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        device, group = self._admin_group(session_id, group_jid)
        results, removed = [], []
        for jid in participants:
            if jid not in group.participants:
                results.append(ParticipantResult(jid=jid, status="not_a_participant"))
            elif jid in (group.owner, device.jid):
                results.append(ParticipantResult(jid=jid, status="not_allowed"))
            else:
                group.participants.pop(jid)
                removed.append(jid)
                results.append(ParticipantResult(jid=jid, status="removed"))
        if removed:
            group.save(update_fields=["participants"])
            now = int(timezone.now().timestamp())
            self._share(group, self._group_event(GroupLeaveEvent, group, removed, device.jid, now))
        return results

    # --- subject, description, settings ---------------------------------------------------------------

    @transaction.atomic
    def group_set_subject(self, session_id: str, group_jid: str, subject: str) -> GroupInfo:
        device, group = self._info_editable(session_id, group_jid)
        group.subject, group.subject_time = subject, int(timezone.now().timestamp())
        group.save(update_fields=["subject", "subject_time"])
        self._updated(device, group, ["subject"])
        return self._info(group)

    @transaction.atomic
    def group_set_description(self, session_id: str, group_jid: str, description: str) -> GroupInfo:
        device, group = self._info_editable(session_id, group_jid)
        group.description = description
        group.save(update_fields=["description"])
        self._updated(device, group, ["description"])
        return self._info(group)

    @transaction.atomic
    def group_set_settings(
        self, session_id: str, group_jid: str, announce: bool | None, locked: bool | None
    ) -> GroupInfo:
        device, group = self._admin_group(session_id, group_jid)
        changed = []
        if announce is not None and announce != group.announce:
            group.announce = announce
            changed.append("announce")
        if locked is not None and locked != group.locked:
            group.locked = locked
            changed.append("locked")
        if changed:
            group.save(update_fields=["announce", "locked"])
            self._updated(device, group, changed)
        return self._info(group)

    # --- invites --------------------------------------------------------------------------------------

    @staticmethod
    def _new_code(group: SandboxGroup) -> None:
        group.invite_serial += 1
        raw = sandbox_digest("invite", group.device_id, group.jid, group.invite_serial)
        group.invite_code = "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in raw[:22])
        group.save(update_fields=["invite_code", "invite_serial"])

    @transaction.atomic
    def group_invite(self, session_id: str, group_jid: str, revoke: bool = False) -> GroupInvite:
        device, group = self._admin_group(session_id, group_jid)
        if revoke or not group.invite_code:
            self._new_code(group)
            if revoke:
                self._updated(device, group, ["invite"])
            else:
                self._share(group)
        return GroupInvite(code=group.invite_code, url=invite_url(group.invite_code))

    @transaction.atomic
    def group_join(self, session_id: str, code: str) -> GroupInfo:
        device = self._paired(session_id)
        source = SandboxGroup.objects.select_for_update().filter(invite_code=code).first() if code else None
        if source is None:
            raise EngineNotFound("No group has this invite code (unknown or revoked).", kind="invite")
        joining = device.jid not in source.participants
        if joining:
            source.participants[device.jid] = False
            source.save(update_fields=["participants"])
            now = int(timezone.now().timestamp())
            self._share(source, self._group_event(GroupJoinEvent, source, [device.jid], "", now))
        own = device.groups.filter(jid=source.jid).first()
        if own is None:  # the group's first row for this session: it hears of its own joining
            own = SandboxGroup(device=device, jid=source.jid, creation=source.creation, owner=source.owner)
            for name in _SHARED:
                setattr(own, name, getattr(source, name))
            own.save()
            now = int(timezone.now().timestamp())
            self.report(str(session_id), self._group_event(GroupJoinEvent, own, [device.jid], "", now))
        return self._info(own)

    # --- pictures -------------------------------------------------------------------------------------

    @transaction.atomic
    def contact_picture(self, session_id: str, jid: str) -> str | None:
        device = self._paired(session_id)
        if jid == device.jid:
            sha = device.picture_sha256
        elif is_group(jid):
            group = device.groups.filter(jid=jid).first()
            sha = group.picture_sha256 if group is not None else ""
        else:
            number = jid.partition("@")[0]
            if number.endswith("0000") or number.endswith("9"):
                return None  # not on WhatsApp, or hidden by the contact's privacy settings
            sha = sandbox_digest("picture", jid).hex()
        return f"{PICTURE_URL}{sha[:32]}.jpg" if sha else None

    def _announce_ok(self, device: SandboxDevice, chat: str) -> None:
        """In an `announce` group only admins send."""
        group = self._own_group(device, chat)
        if group.announce and not group.participants.get(device.jid):
            raise EngineNotAllowed(f"Only admins send messages in group {chat}.")
