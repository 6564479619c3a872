"""The command bus between web/worker processes and engine processes, over Redis.

Keys (prefix `ponte:engine:`):

* `alive:<process>`: a live engine process (JSON: pid, load, max), expiring unless its heartbeat renews it;
  `procs` (sorted set, score = sessions hosted) lists them for least-loaded placement.
* `lease:<session>`: the process owning a session, expiring after `ENGINE_LEASE_SECONDS` unless renewed.
  A lease whose owner is no longer alive can be taken at once (`claim`).
* `cmd:<process>`: the process's command queue; `reply:<id>`: one command's answer (request/reply with a
  correlation id; the caller waits at most `ENGINE_COMMAND_TIMEOUT_SECONDS`).

Values crossing the bus are the engine contract's plain data (messaging.engines.base), encoded by
`encode`/`decode` with an allow-list of dataclasses, never pickled.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from datetime import datetime
from functools import cache
from typing import Any

import redis
from django.conf import settings

from messaging.engines import base
from messaging.engines.chat_events import CHAT_EVENT_TYPES
from messaging.engines.events import ChatArchiveEvent

PREFIX = "ponte:engine:"
VALUE_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        base.QrCode,
        base.ConnectResult,
        base.PairingCode,
        base.Quoted,
        base.ContactCard,
        base.Button,
        base.Sent,
        base.SentTemplate,
        base.Injected,
        base.ContactStatus,
        base.Participant,
        base.GroupInfo,
        base.MediaPayload,
        base.ParticipantResult,
        base.GroupInvite,
        base.SessionBehaviour,
        *base.OUTGOING_KINDS,
        base.ListRow,
        base.ListSection,
        base.ListMessage,
        base.LinkPreview,
        base.ForwardCard,
        base.ForwardContent,
        base.StatusPosted,
        base.NewsletterInfo,
    )
}
# The events the chat actions and labels return (messaging.engines.chat_contract) travel as values too.
VALUE_TYPES.update({cls.__name__: cls for cls in (ChatArchiveEvent, *CHAT_EVENT_TYPES)})
# Errors an engine may answer with, recreated on the caller's side.
ERROR_TYPES: dict[str, type[base.EngineError]] = {
    cls.__name__: cls
    for cls in (
        base.EngineUnavailableError,
        base.EngineNotConnected,
        base.EngineNotFound,
        base.EngineNotAllowed,
        base.EngineRefused,
        base.EngineRateLimited,
        base.EngineUnsupported,
    )
}


def alive_key(process: str) -> str:
    return f"{PREFIX}alive:{process}"


def lease_key(session_id: str) -> str:
    return f"{PREFIX}lease:{session_id}"


def queue_key(process: str) -> str:
    return f"{PREFIX}cmd:{process}"


def reply_key(correlation: str) -> str:
    return f"{PREFIX}reply:{correlation}"


PROCS = f"{PREFIX}procs"


def redis_url() -> str:
    url = settings.ENGINE_REDIS_URL
    if not url:
        raise base.EngineUnavailableError("The remote engine needs ENGINE_REDIS_URL or REDIS_URL.")
    return url


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=2, health_check_interval=10)


def client() -> redis.Redis:
    """One client (and connection pool) per process and URL."""
    return _client(redis_url())


def lease_ms() -> int:
    return int(min(settings.ENGINE_LEASE_SECONDS, 15) * 1000)


# --- leases (atomic in Redis: compare and set) ---------------------------------------------------------

# Take a session: free, already ours, or held by a process that is no longer alive.
CLAIM = """
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] or not current or redis.call('EXISTS', ARGV[3] .. current) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
# Renew our lease; 0 when it is gone or someone else's.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def claim(conn: redis.Redis, session_id: str, process: str) -> bool:
    return bool(conn.eval(CLAIM, 1, lease_key(session_id), process, lease_ms(), f"{PREFIX}alive:"))


def owner(conn: redis.Redis, session_id: str) -> str | None:
    value = conn.get(lease_key(session_id))
    return value.decode() if value else None


def is_alive(conn: redis.Redis, process: str) -> bool:
    return bool(conn.exists(alive_key(process)))


def least_loaded(conn: redis.Redis) -> str | None:
    """The live process hosting the fewest sessions with room for one more (dead entries are dropped)."""
    for raw in conn.zrange(PROCS, 0, -1):
        process = raw.decode()
        state = conn.get(alive_key(process))
        if state is None:
            conn.zrem(PROCS, process)
            continue
        info = json.loads(state)
        if info["load"] < info["max"]:
            return process
    return None


def live_processes(conn: redis.Redis) -> dict[str, dict[str, Any]]:
    processes = {}
    for raw in conn.zrange(PROCS, 0, -1):
        state = conn.get(alive_key(raw.decode()))
        if state is not None:
            processes[raw.decode()] = json.loads(state)
    return processes


# --- values ------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__t": type(value).__name__, **fields}
    if isinstance(value, datetime):
        return {"__dt": value.isoformat()}
    if isinstance(value, bytes):
        return {"__b": base64.b64encode(value).decode()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__dt" in value:
        return datetime.fromisoformat(value["__dt"])
    if "__b" in value:
        return base64.b64decode(value["__b"])
    if "__t" in value:
        cls = VALUE_TYPES[value["__t"]]
        fields = {k: decode(v) for k, v in value.items() if k != "__t"}
        # Tuples in the contract's dataclasses (GroupInfo.participants) travel as lists.
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    return {k: decode(v) for k, v in value.items()}


def error_reply(exc: base.EngineError) -> dict[str, Any]:
    name = next((n for n, cls in ERROR_TYPES.items() if type(exc) is cls), None)
    if name is None:
        name = next(n for n, cls in ERROR_TYPES.items() if isinstance(exc, cls))
    reply = {"ok": False, "error": name, "message": str(exc), "kind": getattr(exc, "kind", "")}
    if isinstance(exc, base.EngineRateLimited):
        reply["retryAfter"] = exc.retry_after
    return reply


def raise_error(reply: dict[str, Any]) -> None:
    cls = ERROR_TYPES.get(reply.get("error", ""), base.EngineUnavailableError)
    if cls is base.EngineNotFound:
        raise base.EngineNotFound(reply.get("message", ""), kind=reply.get("kind") or "message")
    if cls is base.EngineRateLimited:
        raise base.EngineRateLimited(reply.get("message", ""), retry_after=int(reply.get("retryAfter") or 60))
    raise cls(reply.get("message", ""))
