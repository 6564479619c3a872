"""The live event socket: `GET /ws` upgraded to a WebSocket, served on the event loop.

A connection is accepted first and then checked, so that a refusal reaches every client, browsers
included, as an error frame and a close code with its reason (a refused upgrade would only show a
browser "connection failed"). Then:

1. the listener is registered with the process's hub (webhooks.live.hub) before anything is read, so
   no event committed from then on can be missed;
2. with `since`, the outbox's events after that one are sent, page by page; live events arriving
   meanwhile wait in the listener's queue (emptied and read again from the outbox by another pass when
   it overflows) and those the replay already sent are skipped, so the stream continues without a gap
   or a duplicate;
3. a `ready` frame, then live events as they commit. A client's `{"type": "ping"}` is answered with
   `{"type": "pong"}`; protocol-level pings are the server's (uvicorn's --ws-ping-interval), and the
   client's protocol pings are answered by the server as well.

Database work (the key, the sessions, the replay) runs on the web process's pool, never on the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs
from uuid import UUID

from django.conf import settings

from webhooks.live import access
from webhooks.live.access import Grant, Refused
from webhooks.live.frames import control_frame, event_frame
from webhooks.live.hub import HubUnavailable, Listener, hub_for

logger = logging.getLogger(__name__)

PATH = "/ws"
REPLAY_PAGE = 500
# A close frame waits behind what the client has not read yet; past this the connection is dropped.
CLOSE_WAIT_SECONDS = 10.0
# The close reason is at most 123 bytes in the protocol.
REASON_BYTES = 120


def is_live_path(path: str) -> bool:
    return path.rstrip("/") == PATH


def _request(scope: dict[str, Any]) -> access.Request:
    query = {name: values[-1] for name, values in parse_qs(scope.get("query_string", b"").decode()).items()}
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
    header_key = headers.get("x-api-key", "").strip()
    client = scope.get("client") or ("", 0)
    return access.Request(
        key=header_key or query.get("apiKey", "").strip() or None,
        session=query.get("sessionId"),
        events=query.get("events"),
        since=query.get("since"),
        remote_addr=client[0],
        forwarded_for=headers.get("x-forwarded-for", ""),
    )


def _reason(text: str) -> str:
    encoded = text.encode()
    if len(encoded) <= REASON_BYTES:
        return text
    return encoded[: REASON_BYTES - 3].decode(errors="ignore") + "..."


class _Socket:
    def __init__(self, receive: Any, send: Any) -> None:
        self.receive = receive
        self.send_message = send
        self.closed = False

    async def send(self, text: str) -> None:
        await self.send_message({"type": "websocket.send", "text": text})

    async def close(self, code: int, reason: str, *, error: bool = False) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_WAIT_SECONDS):
                if error:
                    await self.send(control_frame("error", code=code, error=reason))
                await self.send_message({"type": "websocket.close", "code": code, "reason": _reason(reason)})


async def live_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI app of `/ws`."""
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    socket = _Socket(receive, send)
    loop = asyncio.get_running_loop()
    try:
        grant = await loop.run_in_executor(None, access.grant, _request(scope))
    except Refused as refused:
        await socket.close(refused.code, refused.reason, error=True)
        return
    except Exception:  # the database is unreachable, say: the client retries later
        logger.exception("Live socket: checking a connection failed")
        await socket.close(1011, "internal error; try again later", error=True)
        return
    hub = hub_for(loop)
    listener = Listener(grant)
    try:
        await hub.add(listener)
    except HubUnavailable:
        await socket.close(access.TRY_AGAIN_LATER, "live events unavailable; try again later", error=True)
        return
    try:
        await _serve(socket, listener, grant)
    except Exception:
        logger.exception("Live socket failed")
        await socket.close(1011, "internal error")
    finally:
        hub.remove(listener)


async def _serve(socket: _Socket, listener: Listener, grant: Grant) -> None:
    tasks = {asyncio.ensure_future(listener.stop), asyncio.ensure_future(_read(socket, listener, grant))}
    replay = asyncio.ensure_future(_replay(socket, listener, grant))
    try:
        done, _ = await asyncio.wait({replay, *tasks}, return_when=asyncio.FIRST_COMPLETED)
        if replay in done:
            replayed, count = replay.result()
            await socket.send(
                control_frame(
                    "ready",
                    sessions=sorted(grant.sessions) if grant.sessions is not None else "*",
                    events=sorted(grant.events) if grant.events is not None else "*",
                    replayed=count,
                )
            )
            tasks.add(asyncio.ensure_future(_pump(socket, listener, replayed)))
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        # The listener's stop is a plain future that may never be set: neither cancelled nor awaited.
        workers = {replay, *tasks} - {listener.stop}
        for task in workers:
            task.cancel()
        for task in workers:
            with contextlib.suppress(BaseException):
                await task
    if listener.stop.done():
        code, reason = listener.stop.result()
        await socket.close(code, reason)
    else:
        await socket.close(1000, "")


async def _replay(socket: _Socket, listener: Listener, grant: Grant) -> tuple[set[str], int]:
    """Send the outbox's events after `since`; the ids sent (the live queue may hold them too).

    Live events wait in the listener's queue meanwhile. If it overflows, it is emptied and the replay
    makes another pass from where it stopped, until a pass ends with the queue intact."""
    sent: set[str] = set()
    position = grant.since
    if position is None:
        return sent, 0
    loop = asyncio.get_running_loop()
    listener.replaying = True
    try:
        while True:
            listener.overflowed = False
            while True:
                page = await loop.run_in_executor(None, _replay_page, grant, position)
                for event in page:
                    if event.id not in sent:
                        await socket.send(event_frame(event))
                        sent.add(event.id)
                if page:
                    position = (datetime.fromisoformat(page[-1].created_at), UUID(page[-1].id))
                if len(page) < REPLAY_PAGE:
                    break
            if not listener.overflowed:
                listener.replay_done(sent)
                return sent, len(sent)
    finally:
        listener.replaying = False  # also when the replay fails or is cancelled


def _replay_page(grant: Grant, position: access.Position) -> list:
    return access.replay_page(grant, position, limit=REPLAY_PAGE)


async def _pump(socket: _Socket, listener: Listener, replayed: set[str]) -> None:
    """Live frames, in the order the hub offered them; those the replay already sent are skipped (an
    event read by the replay may still be on its way to the hub)."""
    while True:
        event_id, frame = await listener.queue.get()
        if event_id not in replayed:
            await socket.send(frame)


async def _read(socket: _Socket, listener: Listener, grant: Grant) -> None:
    """The client's frames (JSON pings), its going away, and the periodic check of its key."""
    loop = asyncio.get_running_loop()
    next_check = loop.time() + float(settings.PONTE_WS_KEY_CHECK_SECONDS)
    while True:
        try:
            async with asyncio.timeout(max(0.0, next_check - loop.time())):
                message = await socket.receive()
        except TimeoutError:
            try:
                valid = await loop.run_in_executor(None, access.key_still_valid, grant)
            except Exception:  # cannot tell now (database unreachable): ask again next time
                logger.warning("Live socket: could not check a key again", exc_info=True)
                valid = True
            if not valid:
                listener.close(access.UNAUTHORIZED, "the API key was revoked or has expired")
                return
            next_check = loop.time() + float(settings.PONTE_WS_KEY_CHECK_SECONDS)
            continue
        if message["type"] == "websocket.disconnect":
            socket.closed = True
            return
        text = message.get("text")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("type") == "ping":
            echo = parsed.get("id")
            # The ping's id comes back when it is a short string or a number.
            keep = isinstance(echo, int | float) or (isinstance(echo, str) and len(echo) <= 100)
            await socket.send(control_frame("pong", **({"id": echo} if keep else {})))
