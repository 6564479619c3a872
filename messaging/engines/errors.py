"""What an engine may raise (messaging.engines.base re-exports every one: engines and services import
them from there). The services turn each into the interface's error (messaging.services.engine)."""

from __future__ import annotations

from datetime import datetime


class EngineError(Exception):
    """Base of what an engine may raise."""


class EngineUnavailableError(EngineError):
    """The engine cannot be reached or does not answer (HTTP 502)."""


class EngineNotConnected(EngineError):
    """The session is not paired with a phone (HTTP 409 SESSION_NOT_CONNECTED)."""


class EngineNotFound(EngineError):
    """A message, group or participant the operation names does not exist.

    `kind` is "message", "group" or "session".
    """

    def __init__(self, message: str, *, kind: str = "message") -> None:
        self.kind = kind
        super().__init__(message)


class EngineNotAllowed(EngineError):
    """The platform refuses the operation (e.g. the session is not a group admin) (HTTP 403)."""


class EngineRefused(EngineError):
    """The platform refuses the input itself (an expired or wrong code) (HTTP 400)."""


class EngineUnsupported(EngineError):
    """The session's channel cannot do this at all (HTTP 400 OPERATION_NOT_SUPPORTED)."""


class EngineRateLimited(EngineError):
    """The platform asks to slow down (HTTP 429 with Retry-After)."""

    def __init__(self, message: str, *, retry_after: int = 60) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class EngineOutsideWindow(EngineError):
    """Free-form messages are refused outside the customer service window (HTTP 409): by the platform
    itself, or by the channel before sending anything (`unsent`: the 24-hour rule with no template that
    fits, `last_customer_at` when the customer last wrote, if known); the services then record the text
    as a failed message."""

    def __init__(
        self, message: str, *, unsent: bool = False, last_customer_at: datetime | None = None
    ) -> None:
        self.unsent = unsent
        self.last_customer_at = last_customer_at
        super().__init__(message)


class EngineCredentialsRevoked(EngineError):
    """The platform refuses the session's credentials (an expired or revoked token): the session is to
    be disconnected with `reason` (HTTP 409 SESSION_NOT_CONNECTED)."""

    def __init__(self, message: str, *, session_id: str, reason: str) -> None:
        self.session_id = session_id
        self.reason = reason
        super().__init__(message)
