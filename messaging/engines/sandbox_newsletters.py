"""The sandbox's channels (newsletters), a mixin of SandboxEngine.

The sandbox's "WhatsApp" is every sandbox device of this database: a channel one session creates can be
followed by another by its JID or invite code (both derived from the device's message counter, so they
are deterministic). Posts to a channel are sends to its JID like to any chat.
"""

from __future__ import annotations

import base64

from django.db import transaction

from messaging.engines.base import EngineNotAllowed, EngineNotFound, NewsletterInfo
from messaging.engines.sandbox_groups import sandbox_digest
from messaging.status_models import SandboxNewsletter
from messaging.values import NEWSLETTER_SUFFIX


def _info(row: SandboxNewsletter) -> NewsletterInfo:
    return NewsletterInfo(
        jid=row.jid, name=row.name, description=row.description, invite=row.invite, role=row.role
    )


class SandboxNewsletters:
    @transaction.atomic
    def newsletter_list(self, session_id: str) -> list[NewsletterInfo]:
        self._paired(session_id)
        return [_info(row) for row in SandboxNewsletter.objects.filter(session_id=session_id).order_by("id")]

    @transaction.atomic
    def newsletter_create(self, session_id: str, name: str, description: str) -> NewsletterInfo:
        device = self._serial_next(session_id)
        digest = sandbox_digest("newsletter", device.session_id, device.message_serial)
        jid = f"120363{int(digest[:8].hex(), 16) % 10**12:012d}@{NEWSLETTER_SUFFIX}"
        invite = base64.b32encode(digest[8:22]).decode().rstrip("=")[:22]
        row = SandboxNewsletter.objects.create(
            session_id=session_id, jid=jid, name=name, description=description, invite=invite, role="owner"
        )
        return _info(row)

    @transaction.atomic
    def newsletter_follow(self, session_id: str, jid: str = "", invite: str = "") -> NewsletterInfo:
        self._paired(session_id)
        found = SandboxNewsletter.objects.filter(role="owner")
        channel = (found.filter(jid=jid) if jid else found.filter(invite=invite)).first()
        if channel is None:
            raise EngineNotFound(f"No channel {jid or invite!r}.", kind="channel")
        row, _ = SandboxNewsletter.objects.get_or_create(
            session_id=session_id,
            jid=channel.jid,
            defaults={
                "name": channel.name,
                "description": channel.description,
                "invite": channel.invite,
                "role": "follower",
            },
        )
        return _info(row)

    @transaction.atomic
    def newsletter_unfollow(self, session_id: str, jid: str) -> None:
        self._paired(session_id)
        row = SandboxNewsletter.objects.filter(session_id=session_id, jid=jid).first()
        if row is None:
            raise EngineNotFound(f"The session does not follow channel {jid}.", kind="channel")
        if row.role == "owner":
            raise EngineNotAllowed("The session owns this channel: an owner cannot unfollow it.")
        row.delete()
