"""RemoteEngine: every command goes to the engine process that owns the session (`manage.py run_engine`).

Selected with `MESSAGING_ENGINE=messaging.engines.remote.RemoteEngine` (needs `ENGINE_REDIS_URL`, by
default `REDIS_URL`). A command is routed to the session's owner (its Redis lease); a session without a
live owner goes to the least loaded live process, which claims it. No process, or no answer within
`ENGINE_COMMAND_TIMEOUT_SECONDS` → `EngineUnavailableError` (HTTP 502 `Engine unavailable`), and the
calling process carries on. The bus is described in messaging.engines.remote.bus.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings

from core.logs import current_request_id
from messaging.engines import base
from messaging.engines.remote import bus
from net.guard import outside_call_check

# The operations that travel: `send` (every kind of message, as its Outgoing value: the engine process
# picks the driver's `send_<kind>`), the contract's other ones, the optional ones, and the sandbox's scan
# and inject. (`credentials_revoked` and `channel_name` stay here: the official channels' own, the
# defaults suit.)
OPTIONAL_COMMANDS = (
    "mark_read",
    "send_presence",
    "restart",
    *base.GROUP_ADMIN_COMMANDS,
    *base.STATUS_COMMANDS,
    *base.NEWSLETTER_COMMANDS,
    *base.LID_COMMANDS,
)
_SENDS = {name for name in base.Engine.__abstractmethods__ if name.startswith("send_")}
COMMANDS = (
    "send",
    *sorted(base.Engine.__abstractmethods__ - _SENDS),
    *OPTIONAL_COMMANDS,
    "scan",
    "inject",
)
# The commands whose services call the engine in no transaction (docs/decisions/0021, 0028): net.guard
# refuses them inside one. That is every command but the sandbox's `inject`: the services read what they
# need, ask the engine with no transaction open (their views run without the request's), then record the
# answer in a short transaction of their own (messaging.services.engine.engine_unit, session_lock).
# `inject` stays inside its transaction on purpose: it exists only when the engine processes host the
# sandbox driver (no phone, no network behind it: its work is this same database's), and it is one unit
# of work with the events it returns, recorded on the session the view read, in the request's
# transaction (messaging.services.sessions.sandbox_inject; tests/messaging/test_send_path.py pins its
# statements).
OUTSIDE_TRANSACTIONS = frozenset(set(COMMANDS) - {"inject"})
# A process that is draining or full answers "ask another": the caller routes again this many times.
_ROUTES = 3


class _RemoteEngineBase(base.Engine):
    label = "remote"

    @property
    def sandbox(self) -> bool:  # type: ignore[override]
        """The sandbox-only actions apply when the engine processes host the sandbox driver."""
        return settings.ENGINE_DRIVER == "sandbox"

    def _target(self, conn: redis.Redis, session_id: str, avoid: set[str]) -> str:
        current = bus.owner(conn, session_id)
        if current and current not in avoid and bus.is_alive(conn, current):
            return current
        process = bus.least_loaded(conn)
        if process is None or process in avoid:
            raise base.EngineUnavailableError("No engine process is available to host the session.")
        return process

    def call(self, session_id: str, method: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        if method in OUTSIDE_TRANSACTIONS:
            # A round trip to another process: never while this one holds a transaction or a row lock
            # (docs/decisions/0021; refused in tests).
            outside_call_check("Engine command %s of session %s", method, session_id)
        timeout = settings.ENGINE_COMMAND_TIMEOUT_SECONDS
        deadline = time.monotonic() + timeout
        avoid: set[str] = set()
        try:
            conn = bus.client()
            for _ in range(_ROUTES):
                process = self._target(conn, session_id, avoid)
                reply = self._send(conn, process, session_id, method, args, kwargs, deadline)
                if reply.get("redirect"):
                    avoid.add(process)
                    continue
                if not reply.get("ok"):
                    bus.raise_error(reply)
                return bus.decode(reply.get("result"))
        except redis.RedisError as exc:
            raise base.EngineUnavailableError(f"The engine bus cannot be reached: {exc}") from exc
        raise base.EngineUnavailableError("No engine process accepted the session.")

    @staticmethod
    def _send(
        conn: redis.Redis,
        process: str,
        session_id: str,
        method: str,
        args: tuple,
        kwargs: dict[str, Any],
        deadline: float,
    ) -> dict[str, Any]:
        correlation = uuid.uuid4().hex
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise base.EngineUnavailableError("The engine did not answer in time.")
        command = {
            "id": correlation,
            "session": session_id,
            "method": method,
            "args": bus.encode(list(args)),
            "kwargs": bus.encode(kwargs),
            # Wall-clock deadline: a command still queued after it is dropped, never run late.
            "deadline": time.time() + remaining,
            # The deliveries of events this command causes name the request (core/logs.py).
            "request_id": current_request_id(),
        }
        conn.rpush(bus.queue_key(process), json.dumps(command))
        # BLPOP counts whole seconds on old servers; a float timeout is honoured by Redis ≥ 6.
        answer = conn.blpop([bus.reply_key(correlation)], timeout=max(remaining, 0.01))
        if answer is None:
            waited = settings.ENGINE_COMMAND_TIMEOUT_SECONDS
            raise base.EngineUnavailableError(
                f"The engine process {process} did not answer within {waited} s."
            )
        return json.loads(answer[1])


def _command(name: str) -> Callable[..., Any]:
    def command(self: _RemoteEngineBase, session_id: str, *args: Any, **kwargs: Any) -> Any:
        return self.call(session_id, name, args, kwargs)

    command.__name__ = command.__qualname__ = name
    command.__doc__ = f"`{name}` run by the engine process that owns the session."
    return command


def _kind(name: str) -> Callable[..., Any]:
    def send_kind(self: _RemoteEngineBase, session_id: str, message: base.Outgoing) -> base.Sent:
        return self.send(session_id, message)

    send_kind.__name__ = send_kind.__qualname__ = name
    send_kind.__doc__ = f"`{name}`: a `send` command, like every kind of message."
    return send_kind


RemoteEngine = type(
    "RemoteEngine",
    (_RemoteEngineBase,),
    {**{name: _kind(name) for name in _SENDS}, **{name: _command(name) for name in COMMANDS}},
)
RemoteEngine.__doc__ = __doc__
RemoteEngine.__module__ = __name__
