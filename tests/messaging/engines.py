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
