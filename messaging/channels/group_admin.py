"""What official channels answer to group administration and contacts' pictures (a mixin of
GraphChannelEngine). The Graph API gives no group administration of this kind to any
of the three channels: 400 OPERATION_NOT_SUPPORTED. Pictures: Messenger and Instagram give a customer's
`profile_pic` (`GET /{user-id}?fields=profile_pic`; null when refused); WhatsApp Cloud has no such call
(400)."""

from __future__ import annotations

import logging

from messaging.channels import PAGE_PROVIDERS, graph
from messaging.channels.outbound import account_of, recipient, unsupported
from messaging.engines.base import GroupInfo, GroupInvite, ParticipantResult

logger = logging.getLogger(__name__)


class GraphGroupAdmin:
    @staticmethod
    def _no_group_admin(session_id: str, what: str) -> Exception:
        return unsupported(account_of(session_id).session.provider, what)

    def group_participants_add(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        raise self._no_group_admin(session_id, "add group participants")

    def group_participants_remove(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        raise self._no_group_admin(session_id, "remove group participants")

    def group_set_subject(self, session_id: str, group_jid: str, subject: str) -> GroupInfo:
        raise self._no_group_admin(session_id, "change a group's subject")

    def group_set_description(self, session_id: str, group_jid: str, description: str) -> GroupInfo:
        raise self._no_group_admin(session_id, "change a group's description")

    def group_set_settings(
        self, session_id: str, group_jid: str, announce: bool | None, locked: bool | None
    ) -> GroupInfo:
        raise self._no_group_admin(session_id, "change a group's settings")

    def group_invite(self, session_id: str, group_jid: str, revoke: bool = False) -> GroupInvite:
        raise self._no_group_admin(session_id, "give group invite links")

    def group_join(self, session_id: str, code: str) -> GroupInfo:
        raise self._no_group_admin(session_id, "join groups by invite")

    def contact_picture(self, session_id: str, jid: str) -> str | None:
        account = account_of(session_id)
        if account.session.provider not in PAGE_PROVIDERS:
            raise unsupported(account.session.provider, "read contacts' profile pictures")
        try:
            profile = graph.call(
                "GET",
                recipient(jid),
                account.credential("pageAccessToken"),
                params={"fields": "profile_pic"},
            )
        except graph.GraphError as exc:  # the customer's privacy settings, a missing permission
            logger.info("Picture of %s refused for session %s: %s", jid, session_id, exc)
            return None
        return str(profile.get("profile_pic") or "") or None
