"""The engine process (`manage.py run_engine`): hosts a driver's sessions and answers their commands.

* Ownership: a session is hosted where its Redis lease points. The heartbeat (every
  `ENGINE_HEARTBEAT_SECONDS`) renews the process's `alive` key and every lease it holds (a lease lasts
  `ENGINE_LEASE_SECONDS`, at most 15 s), re-claims leases lost with a Redis restart, and takes over
  orphaned sessions with stored credentials (no lease, or a lease whose owner is no longer alive), up
  to a fair share of them and `ENGINE_MAX_SESSIONS`.
* Commands: one queue per process; each command runs the driver method and the answer goes back on the
  command's reply key. A command for a session this process does not own is claimed first (new sessions
  land on the least loaded process, chosen by the caller); one held by another live process, or arriving
  while full or draining, is answered "redirect" so the caller routes again.
* Events: the driver reports through the `on_event` callback the process is built with (`run_engine`
  passes `engine_event_receive`, hence the configured sink, the database outbox): what it reports on
  its own, and the events a command's answer carries (a send's echo), recorded here before the answer
  leaves, so an event produced is an event stored whatever becomes of the caller.
* SIGTERM drains: stop taking commands, answer the queued ones "redirect", release every lease and
  leave the registry, so another process takes the sessions over at its next heartbeat.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import threading
import time
import uuid
from typing import Any

import redis
from django.conf import settings
from django.db import close_old_connections

from core.logs import request_id_var, sane_request_id
from messaging.engines.base import Engine, EngineError, EngineUnavailableError, EventCallback
from messaging.engines.remote import bus
from messaging.engines.remote.drivers import load_driver

logger = logging.getLogger(__name__)


class HostedSession:
    """What the process keeps per hosted session (the driver keeps the rest): small on purpose."""

    __slots__ = ("session_id", "since")

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.since = time.time()


class EngineHost:
    def __init__(
        self, *, driver: str, max_sessions: int, on_event: EventCallback, process_id: str = ""
    ) -> None:
        self.id = process_id or f"{os.uname().nodename}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.driver: Engine = load_driver(driver, on_event)
        self.max_sessions = max_sessions
        self.sessions: dict[str, HostedSession] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.conn = redis.Redis.from_url(bus.redis_url(), socket_connect_timeout=2)

    # --- registry and leases -------------------------------------------------------------------------

    @property
    def load(self) -> int:
        return len(self.sessions)

    def register(self) -> None:
        state = json.dumps({"pid": os.getpid(), "load": self.load, "max": self.max_sessions})
        pipe = self.conn.pipeline()
        # Alive for a few heartbeats: a killed process stops counting quickly, and its leases with it.
        pipe.set(bus.alive_key(self.id), state, px=int(settings.ENGINE_HEARTBEAT_SECONDS * 3000))
        pipe.zadd(bus.PROCS, {self.id: self.load})
        pipe.execute()

    def host(self, session_id: str) -> bool:
        """Claim and host a session; False when another live process holds it or this one is full."""
        with self.lock:
            if session_id in self.sessions:
                if bus.claim(self.conn, session_id, self.id):
                    return True
                del self.sessions[session_id]  # another process took it while our lease had lapsed
                return False
            if self.load >= self.max_sessions or self.stopping.is_set():
                return False
            if not bus.claim(self.conn, session_id, self.id):
                return False
            self.sessions[session_id] = HostedSession(session_id)
        self.driver.resume(session_id)
        return True

    def drop(self, session_id: str) -> None:
        with self.lock:
            self.sessions.pop(session_id, None)
        self.conn.eval(bus.RELEASE, 1, bus.lease_key(session_id), self.id)

    def renew(self) -> None:
        """Renew every lease; re-claim one lost (Redis restarted), drop one another process took."""
        with self.lock:
            held = list(self.sessions)
        if not held:
            return
        pipe = self.conn.pipeline(transaction=False)
        for session_id in held:
            pipe.eval(bus.RENEW, 1, bus.lease_key(session_id), self.id, bus.lease_ms())
        for session_id, renewed in zip(held, pipe.execute(), strict=True):
            if not renewed and not bus.claim(self.conn, session_id, self.id):
                logger.warning("Session %s is now hosted elsewhere; dropped", session_id)
                with self.lock:
                    self.sessions.pop(session_id, None)

    def take_over(self) -> int:
        """Host orphaned sessions with stored credentials, up to a fair share and the cap."""
        room = self.max_sessions - self.load
        if room <= 0 or self.stopping.is_set():
            return 0
        stored = [s for s in self.driver.stored_sessions() if s not in self.sessions]
        if not stored:
            return 0
        owners = self.conn.mget([bus.lease_key(s) for s in stored])
        live = bus.live_processes(self.conn)
        orphans = [s for s, o in zip(stored, owners, strict=True) if o is None or o.decode() not in live]
        if not orphans:
            return 0
        # Split what is hosted plus the orphans evenly over the live processes.
        total = sum(p["load"] for p in live.values()) + len(orphans)
        share = max(1, math.ceil(total / max(len(live), 1)) - self.load)
        taken = 0
        for session_id in orphans[: min(room, share)]:
            if self.host(session_id):
                taken += 1
        if taken:
            logger.info("Took over %d orphaned session(s)", taken)
        return taken

    def heartbeat(self) -> None:
        close_old_connections()
        self.register()
        self.renew()
        self.take_over()
        self.register()

    def heartbeat_loop(self) -> None:
        while not self.stopping.wait(settings.ENGINE_HEARTBEAT_SECONDS):
            try:
                self.heartbeat()
            except redis.RedisError as exc:
                logger.warning("Heartbeat failed (Redis): %s; retrying", exc)
            except Exception:
                logger.exception("Heartbeat failed")

    # --- commands ------------------------------------------------------------------------------------

    def answer(self, command: dict[str, Any]) -> dict[str, Any]:
        session_id, method = command["session"], command["method"]
        if method not in bus_commands():
            return {"ok": False, "error": "EngineUnavailableError", "message": f"unknown command {method}"}
        if not self.host(session_id):
            return {"redirect": True}
        close_old_connections()
        # The caller's request id, so deliveries of the events this command causes name it.
        token = request_id_var.set(sane_request_id(command.get("request_id")) or "")
        try:
            args, kwargs = bus.decode(command["args"]), bus.decode(command["kwargs"])
            result = getattr(self.driver, method)(session_id, *args, **kwargs)
        except EngineError as exc:
            return bus.error_reply(exc)
        except Exception as exc:
            logger.exception("Command %s on session %s failed", method, session_id)
            return bus.error_reply(EngineUnavailableError(f"The engine failed: {type(exc).__name__}"))
        finally:
            request_id_var.reset(token)
        if method == "forget":
            self.drop(session_id)
        return {"ok": True, "result": bus.encode(self._reported(session_id, result))}

    def _reported(self, session_id: str, result: Any) -> Any:
        """The events a call returned (a send's echo, a sandbox injection's events) are recorded here,
        through the process's `on_event`, once the driver's own transaction is over: the engine process
        records what its driver produced, as it records what the driver reports on its own, so an echo
        is stored even when the caller is gone. The caller gets the answer without them."""
        events = getattr(result, "events", ())
        for event in events:
            self.driver.report(session_id, event)
        return dataclasses.replace(result, events=()) if events else result

    def reply(self, command: dict[str, Any], answer: dict[str, Any]) -> None:
        key = bus.reply_key(command["id"])
        pipe = self.conn.pipeline()
        pipe.rpush(key, json.dumps(answer))
        pipe.expire(key, 60)  # a caller that gave up never reads it
        pipe.execute()

    def serve_one(self, timeout: float = 1.0) -> bool:
        item = self.conn.blpop([bus.queue_key(self.id)], timeout=timeout)
        if item is None:
            return False
        command = json.loads(item[1])
        if command.get("deadline", math.inf) < time.time():
            return True  # the caller has given up: never run a command late
        self.reply(command, self.answer(command))
        return True

    def run(self) -> None:
        self.register()
        self.take_over()
        self.register()
        beat = threading.Thread(target=self.heartbeat_loop, name="engine-heartbeat", daemon=True)
        beat.start()
        logger.info("Engine process %s hosting driver %s", self.id, type(self.driver).__name__)
        while not self.stopping.is_set():
            try:
                self.serve_one()
            except redis.RedisError as exc:
                logger.warning("Command queue unavailable (Redis): %s; retrying", exc)
                self.stopping.wait(0.5)
        self.drain()
        beat.join(timeout=5)

    def stop(self) -> None:
        self.stopping.set()

    def drain(self) -> None:
        """Hand everything over: queued commands are redirected, leases released, registry left."""
        try:
            # Leave first, so callers route new commands elsewhere, then redirect what is queued.
            for session_id in list(self.sessions):
                self.drop(session_id)
            self.conn.delete(bus.alive_key(self.id))
            self.conn.zrem(bus.PROCS, self.id)
            while True:
                item = self.conn.lpop(bus.queue_key(self.id))
                if item is None:
                    break
                self.reply(json.loads(item), {"redirect": True})
        except redis.RedisError as exc:
            logger.warning("Drain incomplete (Redis): %s; leases will lapse on their own", exc)
        logger.info("Engine process %s drained", self.id)


def bus_commands() -> tuple[str, ...]:
    from messaging.engines.remote import COMMANDS

    return COMMANDS
