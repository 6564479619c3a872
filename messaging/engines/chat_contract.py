"""The contract's chat and contact actions and labels (issue 41): a mixin of `Engine`, kept apart so
messaging.engines.base stays small. Not abstract: an engine without them answers 400
OPERATION_NOT_SUPPORTED naming itself.

Each call returns the events that describe the new state (`chat_archive`, `chat_pin`, `chat_mute`,
`chat_unread`, `contact_block`, `label_edit`, `label_association`: messaging.engines.chat_events) instead
of reporting them: the services record and emit what the call returns, in the caller's process
(messaging.services.chat_state), so the same call travels unchanged to engine processes.
`muted_until` is ISO 8601 or None (unmute); label ids are chosen by the services (the next free one).
"""

from __future__ import annotations

from messaging.engines.errors import EngineUnsupported
from messaging.engines.events import EngineEvent

#: The operations that travel to engine processes (messaging.engines.remote).
CHAT_ACTION_COMMANDS = (
    "chat_archive",
    "chat_pin",
    "chat_mute",
    "chat_unread",
    "contact_block",
    "label_edit",
    "chat_label",
)


class ChatActions:
    label: str = "engine"

    def unsupported_error(self, what: str) -> EngineUnsupported:
        """The 400 OPERATION_NOT_SUPPORTED of an operation this engine cannot do, naming the engine."""
        return EngineUnsupported(f"The {self.label} engine cannot {what}.")

    def chat_archive(self, session_id: str, chat: str, archived: bool) -> list[EngineEvent]:
        raise self.unsupported_error("archive chats")

    def chat_pin(self, session_id: str, chat: str, pinned: bool) -> list[EngineEvent]:
        raise self.unsupported_error("pin chats")

    def chat_mute(self, session_id: str, chat: str, muted_until: str | None) -> list[EngineEvent]:
        raise self.unsupported_error("mute chats")

    def chat_unread(self, session_id: str, chat: str, unread: bool) -> list[EngineEvent]:
        raise self.unsupported_error("mark chats unread")

    def contact_block(self, session_id: str, jid: str, blocked: bool) -> list[EngineEvent]:
        raise self.unsupported_error("block contacts")

    def label_edit(
        self, session_id: str, label_id: str, name: str, color: int, deleted: bool = False
    ) -> list[EngineEvent]:
        """Create (a new id), change or delete (`deleted`) a label."""
        raise self.unsupported_error("manage labels")

    def chat_label(self, session_id: str, chat: str, label_id: str, labeled: bool) -> list[EngineEvent]:
        raise self.unsupported_error("label chats")
