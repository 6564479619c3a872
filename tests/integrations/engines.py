"""Sandbox engines for the integrations tests (selected per session through `Session.engine`): one that
keeps the presence it was asked to show, one whose provider refuses every send, one that is away when
asked to delete."""

from __future__ import annotations

from messaging.engines.base import EngineRefused, EngineUnavailableError
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

    def send_text(self, session_id, message):
        raise EngineRefused("The recipient is not on WhatsApp (131026).")


class AwayOnDeleteSandbox(SandboxEngine):
    label = "sandbox-away-on-delete-test"

    def send_delete(self, session_id, message):
        raise EngineUnavailableError("the engine process did not answer")


RECORDING = "tests.integrations.engines.PresenceRecordingSandbox"
REFUSING = "tests.integrations.engines.RefusingSandbox"
AWAY_ON_DELETE = "tests.integrations.engines.AwayOnDeleteSandbox"
