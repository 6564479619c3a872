"""Chats, contacts, group administration and session settings: their typed results and their
operations (sent by `Client` and `AsyncClient` like those of `ops`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from ponte_client._http import Op
from ponte_client.models import Page

JSON = dict[str, Any]
# The API's names of the session settings, by the client's.
SETTINGS = {
    "reject_calls": "rejectCalls",
    "reject_call_message": "rejectCallMessage",
    "ignore_groups": "ignoreGroups",
    "read_messages": "readMessages",
    "always_online": "alwaysOnline",
    "sync_full_history": "syncFullHistory",
}


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


@dataclass(frozen=True)
class Chat:
    id: str  # the chat's JID
    name: str
    is_group: bool
    unread_count: int
    last_message_at: datetime | None
    archived: bool
    pinned: bool = False
    muted_until: datetime | None = None  # None: not muted now
    marked_unread: bool = False
    lid: str | None = None  # the person's linked id (…@lid), when known
    pn: str | None = None  # the person's phone JID, when known

    @classmethod
    def from_json(cls, data: JSON) -> Chat:
        return cls(
            data["id"],
            data.get("name", ""),
            data["isGroup"],
            data["unreadCount"],
            _dt(data.get("lastMessageAt")),
            data["archived"],
            data.get("pinned", False),
            _dt(data.get("mutedUntil")),
            data.get("markedUnread", False),
            lid=data.get("lid"),
            pn=data.get("pn"),
        )


@dataclass(frozen=True)
class Contact:
    jid: str
    name: str
    push_name: str
    blocked: bool = False

    @classmethod
    def from_json(cls, data: JSON) -> Contact:
        return cls(data["jid"], data.get("name", ""), data.get("pushName", ""), data.get("blocked", False))


@dataclass(frozen=True)
class Participant:
    jid: str
    admin: bool


@dataclass(frozen=True)
class Group:
    id: str  # the group's JID
    subject: str
    subject_time: int
    creation: int
    owner: str
    size: int
    participants: list[Participant]
    description: str = ""
    announce: bool = False  # only admins send
    locked: bool = False  # only admins edit the group's info
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: JSON) -> Group:
        return cls(
            id=data["id"],
            subject=data["subject"],
            subject_time=data["subjectTime"],
            creation=data["creation"],
            owner=data["owner"],
            size=data["size"],
            participants=[Participant(p["jid"], p["admin"]) for p in data.get("participants", [])],
            description=data.get("description", ""),
            announce=data.get("announce", False),
            locked=data.get("locked", False),
            raw=data,
        )


@dataclass(frozen=True)
class ParticipantStatus:
    jid: str
    status: str  # added, removed, already_a_participant, not_a_participant, not_on_whatsapp, not_allowed


@dataclass(frozen=True)
class GroupInvite:
    code: str
    url: str


@dataclass(frozen=True)
class SessionSettings:
    reject_calls: bool
    reject_call_message: str
    ignore_groups: bool
    read_messages: bool
    always_online: bool
    sync_full_history: bool

    @classmethod
    def from_json(cls, data: JSON) -> SessionSettings:
        return cls(**{name: data[api] for name, api in SETTINGS.items()})


def page_of(build: Any) -> Any:
    def parse(response: httpx.Response) -> Page[Any]:
        body = response.json()
        meta = body["meta"]
        return Page(
            [build(item) for item in body["data"]],
            meta["total"],
            meta["page"],
            meta["limit"],
            meta["totalPages"],
        )

    return parse


def _group(response: httpx.Response) -> Group:
    return Group.from_json(response.json())


def _statuses(response: httpx.Response) -> list[ParticipantStatus]:
    return [ParticipantStatus(r["jid"], r["status"]) for r in response.json()["results"]]


def _invite(response: httpx.Response) -> GroupInvite:
    body = response.json()
    return GroupInvite(body["code"], body["url"])


def _settings(response: httpx.Response) -> SessionSettings:
    return SessionSettings.from_json(response.json())


def chats_list(session_id: str, page: int, limit: int, chat: str | None = None) -> Op[Page[Chat]]:
    params: JSON = {"sessionId": session_id, "page": page, "limit": limit}
    if chat:
        params["chat"] = chat  # either id of a person finds its one chat
    return Op("GET", "/api/chats", page_of(Chat.from_json), params=params)


def contacts_list(session_id: str, page: int, limit: int) -> Op[Page[Contact]]:
    params = {"sessionId": session_id, "page": page, "limit": limit}
    return Op("GET", "/api/contacts", page_of(Contact.from_json), params=params)


def contacts_picture(session_id: str, jid: str) -> Op[str | None]:
    params = {"sessionId": session_id, "jid": jid}
    return Op("GET", "/api/contacts/picture", lambda response: response.json()["url"], params=params)


def groups_participants(
    session_id: str, group_jid: str, participants: Sequence[str], action: str
) -> Op[list[ParticipantStatus]]:
    body = {"sessionId": session_id, "groupJid": group_jid, "participants": list(participants)}
    return Op("POST", f"/api/groups/participants/{action}", _statuses, json=body)


def groups_put(session_id: str, group_jid: str, what: str, fields: JSON) -> Op[Group]:
    body = {
        "sessionId": session_id,
        "groupJid": group_jid,
        **{k: v for k, v in fields.items() if v is not None},
    }
    return Op("PUT", f"/api/groups/{what}", _group, json=body)


def groups_invite(session_id: str, group_jid: str) -> Op[GroupInvite]:
    return Op("GET", "/api/groups/invite", _invite, params={"sessionId": session_id, "groupJid": group_jid})


def groups_invite_revoke(session_id: str, group_jid: str) -> Op[GroupInvite]:
    body = {"sessionId": session_id, "groupJid": group_jid}
    return Op("POST", "/api/groups/invite/revoke", _invite, json=body)


def groups_join(session_id: str, code: str) -> Op[Group]:
    return Op("POST", "/api/groups/join", _group, json={"sessionId": session_id, "code": code})


def sessions_settings(session_id: str) -> Op[SessionSettings]:
    return Op("GET", f"/api/sessions/{session_id}/settings", _settings)


def sessions_settings_update(session_id: str, changes: JSON) -> Op[SessionSettings]:
    unknown = set(changes) - set(SETTINGS)
    if unknown:
        raise TypeError(f"unknown session settings: {', '.join(sorted(unknown))}")
    body = {SETTINGS[name]: value for name, value in changes.items() if value is not None}
    return Op("PUT", f"/api/sessions/{session_id}/settings", _settings, json=body)
