"""The sandbox honouring the session's settings on what arrives (a mixin of SandboxEngine, used by
`inject`): group messages dropped under `ignoreGroups`, incoming calls rejected under `rejectCalls` with
the session's message sent to the caller. `readMessages` is honoured where the chat is recorded (every
inbound message counts as read at once: messaging.services.directory), as the sandbox's read receipts
go nowhere; `alwaysOnline` and `syncFullHistory` change nothing the sandbox simulates.
"""

from __future__ import annotations

from typing import Any

from messaging.addressing import is_group
from messaging.engines.events import CallEvent, EngineEvent, event_from_data
from messaging.models import SandboxDevice
from messaging.values import SessionBehaviour


class SandboxBehaviour:
    @staticmethod
    def _ignored(event: str, data: dict[str, Any], behaviour: SessionBehaviour) -> dict[str, Any] | None:
        """What `inject` answers for an inbound group message the session ignores (nothing reported or
        stored), else None."""
        chat = data.get("chat") or data.get("from", "")
        if event == "message" and behaviour.ignore_groups and is_group(chat) and not data.get("fromMe"):
            return {"ignored": True, "reason": "ignoreGroups", "chat": chat}
        return None

    @staticmethod
    def _call(data: dict[str, Any], now: int, behaviour: SessionBehaviour) -> EngineEvent:
        """An incoming call, rejected at once when the session rejects calls."""
        call = event_from_data("call", {**data, "timestamp": now})
        if behaviour.reject_calls and isinstance(call, CallEvent) and call.status == "offer":
            return CallEvent(
                caller=call.caller,
                call_id=call.call_id,
                video=call.video,
                status="reject",
                is_group=call.is_group,
                push_name=call.push_name,
                timestamp=now,
                reject_message=behaviour.reject_call_message or None,
            )
        return call

    def _after(self, device: SandboxDevice, reported: EngineEvent) -> tuple[EngineEvent, ...]:
        """A rejected call's message goes to the caller, as an own text message: its echo."""
        if isinstance(reported, CallEvent) and reported.status == "reject" and reported.reject_message:
            sender = self._serial_next(str(device.session_id))
            return self._sent(sender, reported.caller, "text", text=reported.reject_message).events
        return ()
