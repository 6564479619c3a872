"""The WhatsApp driver's group administration, contacts' pictures and session settings (mixins of
WhatsAppDriver, kept apart so each module stays small), through neonize's own calls:

| operation | library call |
|---|---|
| add / remove participants | `update_group_participants(group, [jid], ParticipantChange.ADD / REMOVE)` |
| subject, description | `set_group_name`, `set_group_topic(group, previous topic id, "", text)` |
| settings | `set_group_announce`, `set_group_locked` |
| invite link, revoke | `get_group_invite_link(group, revoke)` |
| join | `join_group_with_link(code)`, then `get_group_info` |
| picture | `get_profile_picture(jid, GetProfilePictureParams(preview=False))` |
| rejecting a call | `reject_call(caller, call id)`, then the text to the caller by `send_message` |
| always online | `send_presence(Presence.AVAILABLE)` on connecting and when the setting is turned on |

`WhatsAppBehaviour` applies the session's settings to what the library delivers (messaging.engines.
behaviour): group messages dropped (`ignoreGroups`), received messages read at once (`readMessages`),
calls rejected (`rejectCalls`), `unavailable` never sent while `alwaysOnline`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from neonize.proto import Neonize_pb2 as lib
from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import ParticipantChange, Presence, ReceiptType

from messaging.addressing import is_group
from messaging.engines.base import (
    EngineError,
    EngineNotAllowed,
    EngineNotFound,
    GroupInfo,
    GroupInvite,
    ParticipantResult,
    SessionBehaviour,
)
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import CallEvent, EngineEvent, MessageEvent
from messaging.engines.whatsapp import inbound
from messaging.engines.whatsapp.errors import classify, library_errors
from messaging.engines.whatsapp.outbound import group_info, to_jid

logger = logging.getLogger(__name__)

INVITE_URL = "https://chat.whatsapp.com/"
# whatsmeow's answers to a bad invite: revoked (410 gone), invalid (406), unknown (404).
_BAD_INVITE = re.compile(r"revoked|not valid|invalid|gone|item-not-found|\b40[46]\b|\b410\b", re.I)
# whatsmeow's per-participant error codes of an add or a remove.
_ADD_ERRORS = {409: "already_a_participant", 404: "not_on_whatsapp"}
_REMOVE_ERRORS = {404: "not_a_participant", 406: "not_a_participant"}


def participants_update(
    client: Any, group: str, participants: list[str], add: bool
) -> list[ParticipantResult]:
    action = ParticipantChange.ADD if add else ParticipantChange.REMOVE
    answers = client.update_group_participants(to_jid(group), [to_jid(p) for p in participants], action)
    by_jid = {inbound.jid_str(a.JID): a for a in answers}
    errors, done = (_ADD_ERRORS, "added") if add else (_REMOVE_ERRORS, "removed")
    results = []
    for jid in participants:
        answer = by_jid.get(jid)
        if answer is None:
            status = "not_on_whatsapp" if add else "not_a_participant"
        elif answer.Error:
            status = errors.get(answer.Error, "not_allowed")
        else:
            status = done
        results.append(ParticipantResult(jid=jid, status=status))
    return results


def set_description(client: Any, group: str, description: str) -> GroupInfo:
    jid = to_jid(group)
    current = client.get_group_info(jid)
    client.set_group_topic(jid, current.GroupTopic.TopicID, "", description)
    return group_info(client.get_group_info(jid))


def set_settings(client: Any, group: str, announce: bool | None, locked: bool | None) -> GroupInfo:
    jid = to_jid(group)
    if announce is not None:
        client.set_group_announce(jid, announce)
    if locked is not None:
        client.set_group_locked(jid, locked)
    return group_info(client.get_group_info(jid))


def invite(client: Any, group: str, revoke: bool) -> GroupInvite:
    link = client.get_group_invite_link(to_jid(group), revoke)
    code = link.rstrip("/").rsplit("/", 1)[-1]
    return GroupInvite(code=code, url=INVITE_URL + code)


def picture(client: Any, jid: str) -> str | None:
    info = client.get_profile_picture(to_jid(jid), lib.GetProfilePictureParams(Preview=False))
    return info.URL or None


class WhatsAppGroupAdmin:
    _client: Callable[[str], Any]

    def _group_call(self, session_id: str, operation: Callable[..., Any], *args: Any) -> Any:
        client = self._client(session_id)
        with library_errors(kind="group"):
            return operation(client, *args)

    def group_participants_add(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._group_call(session_id, participants_update, group_jid, participants, True)

    def group_participants_remove(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._group_call(session_id, participants_update, group_jid, participants, False)

    def group_set_subject(self, session_id: str, group_jid: str, subject: str) -> GroupInfo:
        def rename(client: Any, group: str, name: str) -> GroupInfo:
            client.set_group_name(to_jid(group), name)
            return group_info(client.get_group_info(to_jid(group)))

        return self._group_call(session_id, rename, group_jid, subject)

    def group_set_description(self, session_id: str, group_jid: str, description: str) -> GroupInfo:
        return self._group_call(session_id, set_description, group_jid, description)

    def group_set_settings(
        self, session_id: str, group_jid: str, announce: bool | None, locked: bool | None
    ) -> GroupInfo:
        return self._group_call(session_id, set_settings, group_jid, announce, locked)

    def group_invite(self, session_id: str, group_jid: str, revoke: bool = False) -> GroupInvite:
        return self._group_call(session_id, invite, group_jid, revoke)

    def group_join(self, session_id: str, code: str) -> GroupInfo:
        client = self._client(session_id)
        try:
            jid = client.join_group_with_link(code)
        except EngineError:
            raise
        except Exception as exc:
            if _BAD_INVITE.search(str(exc)):
                raise EngineNotFound(f"The invite code is unknown or revoked: {exc}", kind="invite") from exc
            raise classify(exc, kind="group") from exc
        with library_errors(kind="group"):
            return group_info(client.get_group_info(jid))

    def contact_picture(self, session_id: str, jid: str) -> str | None:
        client = self._client(session_id)
        try:
            return picture(client, jid)
        except Exception as exc:
            error = classify(exc, kind="picture")
            if isinstance(error, EngineNotFound | EngineNotAllowed):
                return None  # none set, or hidden by the contact's privacy settings
            raise error from exc

    def settings_apply(self, session_id: str, behaviour: SessionBehaviour) -> None:
        if behaviour.always_online:
            self._group_call(session_id, lambda client: client.send_presence(Presence.AVAILABLE))


class WhatsAppBehaviour:
    """The session's settings applied to what the library delivers (used by the driver's `_map`)."""

    _emit: Callable[[str, EngineEvent], None]

    @staticmethod
    def ignored(session_id: str, ev: Any) -> bool:
        """A group message the session ignores: dropped before anything is downloaded."""
        return bool(ev.Info.MessageSource.IsGroup) and behaviour_of(session_id).ignore_groups

    @staticmethod
    def without_ignored(session_id: str, events: list[MessageEvent]) -> list[MessageEvent]:
        if not any(is_group(e.chat) for e in events) or not behaviour_of(session_id).ignore_groups:
            return events
        return [e for e in events if not is_group(e.chat)]

    @staticmethod
    def read_at_once(session_id: str, client: Any, message: MessageEvent) -> None:
        if message.from_me or message.is_history or not behaviour_of(session_id).read_messages:
            return
        try:
            client.mark_read(
                message.id,
                chat=to_jid(message.chat),
                sender=to_jid(message.sender or message.chat),
                receipt=ReceiptType.READ,
            )
        except Exception:  # the message is recorded all the same; it shows unread on the phone
            logger.warning("Marking %s read at once failed (session %s)", message.id, session_id)

    def call_offer(self, session_id: str, client: Any, ev: Any) -> list[EngineEvent]:
        """An incoming call: reported, or rejected (and the caller told) under `rejectCalls`."""
        offer = inbound.call_event(ev, "offer")
        behaviour = behaviour_of(session_id)
        if not behaviour.reject_calls:
            return [offer]
        meta = ev.basicCallMeta
        with library_errors():
            client.reject_call(getattr(meta, "from"), meta.callID)
        events: list[EngineEvent] = [
            CallEvent(
                caller=offer.caller,
                call_id=offer.call_id,
                video=offer.video,
                status="reject",
                reject_message=behaviour.reject_call_message or None,
            )
        ]
        if behaviour.reject_call_message:
            message = wa.Message(conversation=behaviour.reject_call_message)
            with library_errors():
                sent = client.send_message(to_jid(offer.caller), message)
            events.append(
                MessageEvent(
                    id=sent.ID,
                    chat_jid=offer.caller,
                    sender=inbound.jid_str(client.get_me().JID),
                    text=behaviour.reject_call_message,
                    timestamp=int(sent.Timestamp // 1000 if sent.Timestamp > 10**11 else sent.Timestamp),
                    from_me=True,
                )
            )
        return events

    @staticmethod
    def stay_online(session_id: str, client: Any) -> None:
        if behaviour_of(session_id).always_online:
            with library_errors():
                client.send_presence(Presence.AVAILABLE)

    @staticmethod
    def presence_allowed(session_id: str, presence: str) -> bool:
        """`unavailable` is not sent while the session stays online."""
        return presence != "unavailable" or not behaviour_of(session_id).always_online
