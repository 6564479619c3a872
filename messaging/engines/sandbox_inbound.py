"""The sandbox's inbound side: events arriving from its simulated "WhatsApp" (`inject`).

A mixin of SandboxEngine, kept apart so each module stays small; it uses the engine's device, group and
id helpers and returns the typed events it produced for the services to record.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from messaging.addressing import is_group
from messaging.engines.base import EngineNotFound, Injected
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import (
    EngineEvent,
    GroupChange,
    GroupJoinEvent,
    GroupLeaveEvent,
    GroupUpdateEvent,
    event_from_data,
)
from messaging.models import SandboxDevice, SandboxGroup
from messaging.values import SessionBehaviour


class SandboxInbound:
    # Without a savepoint: an inbound event that fails fails its caller's unit of work (the HTTP request
    # rolls back), and a savepoint per event cost two round trips.
    @transaction.atomic(savepoint=False)
    def inject(self, session_id: str, event: str, data: dict[str, Any]) -> Injected:
        """Something arrives from "WhatsApp". `data` is validated (messaging.api.sandbox) and uses the
        event contract's keys; JIDs are full JIDs. Returns the event's data and the events to record
        (the event, then a rejected call's message), or `{"ignored": true, ...}` and none for what the
        session's settings drop (messaging.engines.behaviour)."""
        # The settings matter only to calls and others' group messages: read for those alone.
        chat = data.get("chat") or data.get("from", "")
        wanted = event == "call" or (event == "message" and not data.get("fromMe") and is_group(chat))
        behaviour = behaviour_of(session_id) if wanted else SessionBehaviour()
        ignored = self._ignored(event, data, behaviour)
        if ignored is not None:
            self._paired(session_id)
            return Injected(data=ignored)
        # A message without its own id takes the device's next one (and locks the device) in one statement.
        numbered = event == "message" and not data.get("messageId")
        device = self._serial_next(session_id) if numbered else self._paired(session_id)
        now = int(timezone.now().timestamp())
        reported: EngineEvent
        if event == "message":
            chat = data.get("chat") or data["from"]
            if is_group(chat):
                self._own_group(device, chat)
            from_me = bool(data.get("fromMe"))
            fields = {k: v for k, v in data.items() if k not in ("from", "messageId", "media")}
            if data.get("media"):
                fields.update(self._inbound_media(session_id, data["media"]))
            reported = event_from_data(
                "message",
                {
                    **fields,
                    "id": data.get("messageId") or self._message_id(device),
                    "chat": chat,
                    "sender": device.jid if from_me else data["from"],
                    "pushName": device.push_name if from_me else data.get("pushName", ""),
                    "timestamp": now,
                    "fromMe": from_me,
                },
            )
        elif event == "disconnected":
            reported = self._inject_disconnected(session_id, data["reason"])
        elif event in ("group_join", "group_leave", "group_update"):
            reported = self._inject_group(device, event, data, now)
        elif event in ("poll_vote", "message_edited"):
            reported = self.inject_poll_or_edit(device, event, data)
        elif event == "call":
            reported = self._call(data, now, behaviour)
        elif event == "status":
            reported = self._inject_status(device, data, now)
        else:
            reported = event_from_data(event, {**data, "timestamp": now})
        return Injected(data=reported.to_data(), events=(reported, *self._after(device, reported)))

    def _inject_group(self, device: SandboxDevice, event: str, data: dict[str, Any], now: int) -> GroupChange:
        jid, participants = data["group"], list(data.get("participants", []))
        group = device.groups.filter(jid=jid).first()
        if group is None:
            if event != "group_join" or device.jid not in participants:
                raise EngineNotFound(f"The session is not in group {jid}.", kind="group")
            owner = data.get("by") or participants[0]
            group = SandboxGroup(
                device=device,
                jid=jid,
                subject=data.get("subject") or "Group",
                subject_time=now,
                creation=now,
                owner=owner,
                participants={owner: True},
            )
        elif device.jid not in group.participants and device.jid not in participants:
            raise EngineNotFound(f"The session is not in group {jid}.", kind="group")
        if event == "group_update":
            group.subject = data.get("subject") or group.subject
            group.subject_time = now
            group.save()
            return self._group_event(GroupUpdateEvent, group, [], data.get("by", ""), now)
        admins = set(data.get("admins", []))
        for participant in participants:
            if event == "group_join":
                group.participants[participant] = participant in admins or group.participants.get(
                    participant, False
                )
            else:
                group.participants.pop(participant, None)
        group.save()
        kind = GroupJoinEvent if event == "group_join" else GroupLeaveEvent
        return self._group_event(kind, group, participants, data.get("by", ""), now)
