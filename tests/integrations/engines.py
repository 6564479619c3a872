"""Sandbox engines for the integrations tests (selected per session through `Session.engine`): one that
keeps the presence it was asked to show, one whose provider refuses every send."""

from __future__ import annotations

from messaging.engines.base import EngineRefused
from messaging.engines.sandbox import SandboxEngine

PRESENCES: list[tuple[str, str]] = []
READS: list[tuple[str, list[str]]] = []


class PresenceRecordingSandbox(SandboxEngine):
    label = "sandbox-presence-test"

    def send_presence(self, session_id: str, chat: str, presence: str) -> None:
        super().send_presence(session_id, chat, presence)
        PRESENCES.append((chat, presence))

    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        super().mark_read(session_id, chat, message_ids, sender)
        READS.append((chat, list(message_ids)))


class RefusingSandbox(SandboxEngine):
    label = "sandbox-refusing-test"

    def send_text(self, session_id, to, text, quoted=None):
        raise EngineRefused("The recipient is not on WhatsApp (131026).")


RECORDING = "tests.integrations.engines.PresenceRecordingSandbox"
REFUSING = "tests.integrations.engines.RefusingSandbox"
