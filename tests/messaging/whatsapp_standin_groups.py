"""The stand-in client (tests/messaging/whatsapp_standin.py) with neonize's group administration,
invite, picture and call calls: the library's own method names and protobuf types, every call recorded.

Rules of this stand-in: numbers ending in 0000 are not on WhatsApp (404), in 0002 already in the group
(409); in 9 hide their picture (not-authorized), in 0000 have none (item-not-found); the invite code
`REVOKED` is refused as whatsmeow refuses a revoked link."""

from __future__ import annotations

from typing import Any

from neonize.exc import GetProfilePictureError, InviteLinkError
from neonize.proto import Neonize_pb2 as lib

from tests.messaging.whatsapp_standin import OWN, StandInClient

GROUP = lib.JID(User="120363000000000001", Server="g.us")


class GroupAdminStandIn(StandInClient):
    topic_id = "TOPIC1"

    def update_group_participants(self, jid: Any, participants: list[Any], action: Any) -> list[Any]:
        self._record("update_group_participants", jid, participants, action)

        def error(user: str) -> int:
            return 404 if user.endswith("0000") else 409 if user.endswith("0002") else 0

        return [lib.GroupParticipant(JID=p, Error=error(p.User)) for p in participants]

    def get_group_info(self, jid: Any) -> Any:
        info = self.group_info("Equipe", [lib.JID(User="5511988880002", Server="s.whatsapp.net")])
        info.GroupTopic.CopyFrom(lib.GroupTopic(Topic="Sobre", TopicID=self.topic_id))
        info.GroupAnnounce.CopyFrom(lib.GroupAnnounce(IsAnnounce=True))
        info.GroupLocked.CopyFrom(lib.GroupLocked(isLocked=False))
        return info

    def set_group_name(self, jid: Any, name: str) -> None:
        self._record("set_group_name", jid, name)

    def set_group_topic(self, jid: Any, previous_id: str, new_id: str, topic: str) -> None:
        self._record("set_group_topic", jid, previous_id, new_id, topic)

    def set_group_announce(self, jid: Any, announce: bool) -> None:
        self._record("set_group_announce", jid, announce)

    def set_group_locked(self, jid: Any, locked: bool) -> None:
        self._record("set_group_locked", jid, locked)

    def get_group_invite_link(self, jid: Any, revoke: bool = False) -> str:
        self._record("get_group_invite_link", jid, revoke)
        return "https://chat.whatsapp.com/" + ("NewCode456" if revoke else "Code123abc")

    def join_group_with_link(self, code: str) -> Any:
        self._record("join_group_with_link", code)
        if code == "REVOKED":
            raise InviteLinkError("that group invite link has been revoked")
        return GROUP

    def get_profile_picture(self, jid: Any, extra: Any = None) -> Any:
        self._record("get_profile_picture", jid, extra)
        if jid.User.endswith("9"):
            raise GetProfilePictureError("info query returned status 401: not-authorized")
        if jid.User.endswith("0000"):
            raise GetProfilePictureError("info query returned status 404: item-not-found")
        return lib.ProfilePictureInfo(URL=f"https://pps.whatsapp.net/v/{jid.User}.jpg", ID="1", Type="image")

    def reject_call(self, call_from: Any, call_id: str) -> None:
        self._record("reject_call", call_from, call_id)


__all__ = ["GROUP", "OWN", "GroupAdminStandIn"]
