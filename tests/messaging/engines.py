"""Engines used by the tests (selected through settings or `Session.engine`)."""

from __future__ import annotations

import time

from messaging.engines.base import Engine, EngineUnavailableError
from messaging.engines.remote import OUTSIDE_TRANSACTIONS
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
    """The sandbox as if behind a network, asking net.guard before every command RemoteEngine guards
    (`OUTSIDE_TRANSACTIONS`: every bus command but the sandbox's inject): a call made while the
    service or the request holds a transaction or a row lock fails the test (tests/conftest.py)."""

    label = "guarded-test"
    local = False

    def send(self, session_id, message):
        outside_call_check("Guarded engine send %s", message.kind)
        return super().send(session_id, message)


def _guarded(name: str):
    def command(self, session_id, *args, **kwargs):
        outside_call_check("Guarded engine %s of session %s", name, session_id)
        return getattr(SandboxEngine, name)(self, session_id, *args, **kwargs)

    command.__name__ = command.__qualname__ = name
    return command


for _name in OUTSIDE_TRANSACTIONS - {"send"}:
    setattr(GuardedSandboxEngine, _name, _guarded(_name))


GUARDED = "tests.messaging.engines.GuardedSandboxEngine"


class DeletedMeanwhileEngine(GuardedSandboxEngine):
    """The guarded sandbox whose session is deleted (by another request) while a command is on its way:
    the services must cope when they come to record the answer."""

    label = "deleted-meanwhile-test"

    def _deleted(self, session_id):
        from messaging.models import Session

        Session.objects.filter(pk=session_id).delete()

    def group_create(self, session_id, *args, **kwargs):
        info = super().group_create(session_id, *args, **kwargs)
        self._deleted(session_id)
        return info

    def logout(self, session_id):
        super().logout(session_id)
        self._deleted(session_id)


DELETED_MEANWHILE = "tests.messaging.engines.DeletedMeanwhileEngine"
