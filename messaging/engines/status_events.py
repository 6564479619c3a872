"""The status (story) event (issue 41), beside messaging.engines.events: a contact's status seen by the
session, or the session's own posted from the phone. Registered in EVENT_TYPES by this module, which the
package imports (messaging.engines), so it is known wherever an event is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from messaging.engines.events import EVENT_TYPES, EngineEvent
from messaging.values import STATUS_TYPES


@dataclass(frozen=True)
class StatusEvent(EngineEvent):
    """A status (story): a contact's, seen by the session, or the session's own posted from the phone
    (`from_me`); `revoked`: its author deleted the status `id`. Text statuses carry `backgroundColor`
    (`#RRGGBB`) and `font` (0 to 5); media ones `caption` and the stored media's link and facts."""

    name: ClassVar[str] = "status"

    id: str = ""
    sender: str = ""
    push_name: str = ""
    type: str = field(default="text", metadata={"choices": STATUS_TYPES})
    text: str = ""
    timestamp: int = 0
    from_me: bool = False
    background_color: str | None = None
    font: int | None = None
    caption: str | None = None
    media_url: str | None = None
    mime_type: str | None = None
    sha256: str | None = None
    size: int | None = None

    @property
    def chat(self) -> str:
        return "status@broadcast"


EVENT_TYPES[StatusEvent.name] = StatusEvent
