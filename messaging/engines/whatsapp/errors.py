"""Library failures → engine exceptions (and so the API's error codes, messaging.services.engine).

neonize raises NeonizeError subclasses whose text is whatsmeow's error string; whatsmeow's wording is
stable enough to classify: "not connected"/"not logged in", "rate-overlimit" (429), "item-not-found" or
"404", "not-authorized"/"forbidden"/"not-acceptable" (401/403/406), timeouts and network errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from messaging.engines.base import (
    EngineError,
    EngineNotAllowed,
    EngineNotConnected,
    EngineNotFound,
    EngineRateLimited,
    EngineUnavailableError,
)

_RULES: tuple[tuple[re.Pattern[str], type[EngineError]], ...] = (
    (re.compile(r"not (connected|logged in)|websocket not connected|no session", re.I), EngineNotConnected),
    (re.compile(r"rate[- ]?overlimit|\b429\b|too many", re.I), EngineRateLimited),
    (re.compile(r"item-not-found|not[- ]found|\b404\b|not in group|not a participant", re.I), EngineNotFound),
    (
        re.compile(r"not-authorized|forbidden|not-acceptable|not allowed|\b40[136]\b|not an admin", re.I),
        EngineNotAllowed,
    ),
)


def classify(exc: Exception, *, kind: str = "message") -> EngineError:
    """The engine exception for a library failure; anything unrecognised is `unavailable`."""
    text = str(exc) or type(exc).__name__
    for pattern, error in _RULES:
        if pattern.search(text):
            if error is EngineNotFound:
                return EngineNotFound(text, kind=kind)
            return error(text)
    return EngineUnavailableError(f"WhatsApp did not complete the operation: {text}")


@contextmanager
def library_errors(*, kind: str = "message") -> Iterator[None]:
    """Run library calls; their failures leave as engine exceptions (engine ones pass through)."""
    try:
        yield
    except EngineError:
        raise
    except Exception as exc:  # the library's own exceptions are NeonizeError; ctypes may raise others
        raise classify(exc, kind=kind) from exc
