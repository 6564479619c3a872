"""Engines used by the tests (selected through settings or `Session.engine`)."""

from __future__ import annotations

import time

from messaging.engines.base import Engine, EngineUnavailableError
from messaging.engines.sandbox import SandboxEngine
from net.guard import outside_call_check


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


class GuardedSandboxEngine(SandboxEngine):
    """The sandbox as if behind a network, asking net.guard before every call a service makes in a
    request (as RemoteEngine does for its sends and profile commands): a call made while the service
    holds a transaction or a row lock fails the test (tests/conftest.py)."""

    label = "guarded-test"
    local = False

    def send(self, session_id, message):
        outside_call_check("Guarded engine send %s", message.kind)
        return super().send(session_id, message)

    def set_profile_status(self, session_id, status):
        outside_call_check("Guarded engine set_profile_status")
        return super().set_profile_status(session_id, status)

    def set_profile_name(self, session_id, name):
        outside_call_check("Guarded engine set_profile_name")
        return super().set_profile_name(session_id, name)


GUARDED = "tests.messaging.engines.GuardedSandboxEngine"
