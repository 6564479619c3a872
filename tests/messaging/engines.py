"""Engines used by the tests (selected through settings or `Session.engine`)."""

from __future__ import annotations

from messaging.engines.base import Engine, EngineUnavailableError


def _unavailable(self, *args, **kwargs):
    raise EngineUnavailableError("engine process did not answer within the timeout")


# An engine whose every operation fails the way a dead engine process would.
UnavailableEngine = type(
    "UnavailableEngine",
    (Engine,),
    {"label": "unavailable-test", **dict.fromkeys(Engine.__abstractmethods__, _unavailable)},
)

UNAVAILABLE = "tests.messaging.engines.UnavailableEngine"


def _throttled(self, *args, **kwargs):
    from messaging.engines.base import EngineRateLimited

    raise EngineRateLimited("rate-overlimit", retry_after=42)


# An engine whose network asks the account to slow down (WhatsApp's rate-overlimit).
ThrottledEngine = type(
    "ThrottledEngine",
    (Engine,),
    {
        "label": "throttled-test",
        **dict.fromkeys(Engine.__abstractmethods__, _throttled),
        "send_media": _throttled,
    },
)

THROTTLED = "tests.messaging.engines.ThrottledEngine"
