"""Engines used by the tests (selected through settings or `Session.engine`)."""

from __future__ import annotations

import time

from messaging.engines.base import Engine, EngineUnavailableError
from messaging.engines.sandbox import SandboxEngine


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


class LatentSandboxEngine(SandboxEngine):
    """The sandbox behind a network: every text send takes `round_trip` seconds, half before the
    sandbox's work (the command on its way) and half after (the answer on its way back), outside any
    lock, as a real engine's round trip is (an engine process over Redis, Meta's Graph API). Not
    `local`: the sending service calls it outside any transaction, as it calls those."""

    label = "latent-test"
    local = False
    round_trip = 0.2

    def send_text(self, *args, **kwargs):
        time.sleep(self.round_trip / 2)
        sent = super().send_text(*args, **kwargs)
        time.sleep(self.round_trip / 2)
        return sent


LATENT = "tests.messaging.engines.LatentSandboxEngine"
