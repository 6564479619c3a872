"""Serves a WSGI app (Django's WSGIHandler) from the ASGI server on a small, fixed pool of threads.

Why not Django's ASGI handler: it runs each request's sync code in a fresh thread context, and database
connections are per thread, so every request opens its own connection and, with CONN_MAX_AGE, leaves it
open until PostgreSQL runs out of connections; it is also several times slower than the same code under
a WSGI server (docs/decisions/0005). Here:

- the request body is read on the event loop before the request takes a thread (a slow client holds no
  thread), up to DATA_UPLOAD_MAX_MEMORY_SIZE; past that the rest is left unread and Django, seeing the
  declared length, refuses the body itself (multipart uploads, which Django streams to files, are read
  whole into a spooled temporary file instead);
- one hop to a pool thread runs Django, one hop back sends the response, so per-thread persistent
  database connections are reused and their number is bounded by the pool size;
- streamed responses (StreamingHttpResponse, files) are sent while the thread iterates them, in pieces
  of up to STREAM_FLUSH_BYTES, each waiting until the server took the previous one (back-pressure); a
  client that goes away stops the iteration.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]

# Streamed pieces are gathered up to this size (or this age) before a hop to the event loop: a CSV
# view yielding one row at a time would otherwise pay a thread hop per row.
STREAM_FLUSH_BYTES = 64 * 1024
STREAM_FLUSH_SECONDS = 0.05


class ClientGone(Exception):
    """The client disconnected before the request body was read."""


class WsgiBridge:
    """An ASGI app (HTTP only) running `wsgi_app` on at most `threads` threads."""

    def __init__(self, wsgi_app: Callable, *, threads: int, body_limit: Callable[[], int | None]) -> None:
        self.wsgi_app = wsgi_app
        self.threads = threads
        self.body_limit = body_limit
        # One pool per event loop, i.e. per server (a process runs one; tests may run several).
        self._pools: dict[asyncio.AbstractEventLoop, ThreadPoolExecutor] = {}

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """At server start (ASGI lifespan): the pool is made the loop's default executor too, so other
        sync work on the loop (the MCP tools' `sync_to_async`) shares its threads and their
        connections. The loop shuts it down when the server stops."""
        loop.set_default_executor(self.pool(loop))

    def pool(self, loop: asyncio.AbstractEventLoop) -> ThreadPoolExecutor:
        pool = self._pools.get(loop)
        if pool is None:
            for closed in [known for known in self._pools if known.is_closed()]:
                self._pools.pop(closed).shutdown(wait=False)
            pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="ponte-web")
            self._pools[loop] = pool
        return pool

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body, length = await self._read_body(scope, receive)
        except ClientGone:
            return
        loop = asyncio.get_running_loop()
        stream = _Stream(loop, receive, send)
        # In a copy of the request's context, so the thread sees its request id (core/observe.py).
        run = contextvars.copy_context().run
        try:
            reply = await loop.run_in_executor(self.pool(loop), run, self._run, scope, body, length, stream)
        finally:
            stream.stop_watching()
        if reply is None:  # streamed from the thread
            return
        status, headers, content = reply
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    async def _read_body(self, scope: Scope, receive: Receive) -> tuple[io.IOBase, int]:
        """The body, and the length Django is told (the declared one when the body was cut short)."""
        headers = dict(scope["headers"])
        if headers.get(b"content-type", b"").startswith(b"multipart/form-data"):
            return await _read_into_spool(receive)
        limit = self.body_limit()
        declared = _int(headers.get(b"content-length"))
        if limit is not None and declared is not None and declared > limit:
            # Django refuses a declared length over the limit before reading a byte.
            return io.BytesIO(), declared
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ClientGone
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            if chunk:
                chunks.append(chunk)
                size += len(chunk)
            if limit is not None and size > limit:
                # Chunked and too long: Django gets what was read, told it is longer than the limit.
                break
        return io.BytesIO(chunks[0] if len(chunks) == 1 else b"".join(chunks)), size

    def _run(
        self, scope: Scope, body: io.IOBase, length: int, stream: _Stream
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """On a pool thread: run the WSGI app; return the whole reply, or stream it and return None."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started[:] = [status, headers]

        try:
            result: Iterable[bytes] = self.wsgi_app(wsgi_environ(scope, body, length), start_response)
        except Exception:
            logger.exception("The WSGI app raised instead of answering")
            return 500, [(b"content-type", b"text/plain; charset=utf-8")], b"Internal Server Error"
        try:
            pieces: list[bytes] = []
            iterator = iter(result)
            for piece in iterator:
                if piece:
                    pieces.append(piece)
                if len(pieces) == 2:  # more than one piece: a streamed response
                    stream.start(_status(started), _headers(started), pieces)
                    stream.send_rest(iterator)
                    return None
            return _status(started), _headers(started), b"".join(pieces)
        except Exception:
            logger.exception("The WSGI app failed while producing its response")
            if stream.started:
                return None
            return 500, [(b"content-type", b"text/plain; charset=utf-8")], b"Internal Server Error"
        finally:
            # Django's request_finished (connection upkeep, CONN_MAX_AGE) runs here, on this thread.
            close = getattr(result, "close", None)
            if close is not None:
                close()


class _Stream:
    """Sends a streamed response from a pool thread, one piece at a time, through the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, receive: Receive, send: Send) -> None:
        self.loop = loop
        self.receive = receive
        self.send = send
        self.started = False
        self.gone = threading.Event()
        self.watcher: asyncio.Task | None = None

    def _watch(self) -> None:
        self.watcher = self.loop.create_task(self._wait_for_disconnect())

    async def _wait_for_disconnect(self) -> None:
        # The body was read whole, so the next message is the client going away.
        while (await self.receive())["type"] != "http.disconnect":
            pass
        self.gone.set()

    def stop_watching(self) -> None:
        """On the event loop, once the thread is done."""
        if self.watcher is not None:
            self.watcher.cancel()

    def _send(self, message: dict[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(self.send(message), self.loop).result()

    def start(self, status: int, headers: list[tuple[bytes, bytes]], first: list[bytes]) -> None:
        self.started = True
        self.loop.call_soon_threadsafe(self._watch)
        self._send({"type": "http.response.start", "status": status, "headers": headers})
        self._send({"type": "http.response.body", "body": b"".join(first), "more_body": True})

    def send_rest(self, iterator: Iterable[bytes]) -> None:
        buffered: list[bytes] = []
        size = 0
        flushed = time.monotonic()
        for piece in iterator:
            if self.gone.is_set():
                return
            buffered.append(piece)
            size += len(piece)
            if size >= STREAM_FLUSH_BYTES or time.monotonic() - flushed >= STREAM_FLUSH_SECONDS:
                self._send({"type": "http.response.body", "body": b"".join(buffered), "more_body": True})
                buffered, size, flushed = [], 0, time.monotonic()
        self._send({"type": "http.response.body", "body": b"".join(buffered)})


async def _read_into_spool(receive: Receive) -> tuple[io.IOBase, int]:
    """A whole multipart body (file uploads), in memory up to Django's in-memory file limit, then on
    disk, as Django's own ASGI handler does."""
    from django.conf import settings

    spool = tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE)  # noqa: SIM115
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            spool.close()
            raise ClientGone
        chunk = message.get("body", b"")
        more = message.get("more_body", False)
        spool.write(chunk)
        size += len(chunk)
    spool.seek(0)
    return spool, size


def wsgi_environ(scope: Scope, body: io.IOBase, length: int) -> dict[str, Any]:
    """PEP 3333 environ for an ASGI HTTP scope (paths as latin-1 strings of their UTF-8 bytes)."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    root_path = scope.get("root_path", "")
    # The ASGI path includes the root path (a mount prefix); WSGI splits them (as Django's ASGI handler).
    path = scope["path"].removeprefix(root_path) if root_path else scope["path"]
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root_path.encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": "HTTP/" + scope.get("http_version", "1.1"),
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "CONTENT_LENGTH": str(length),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        if name == "CONTENT_LENGTH":
            continue
        key = name if name == "CONTENT_TYPE" else "HTTP_" + name
        value = raw_value.decode("latin-1")
        environ[key] = environ[key] + "," + value if key in environ else value
    return environ


def _status(started: list[Any]) -> int:
    if not started:
        raise RuntimeError("the WSGI app returned without calling start_response")
    return int(started[0][:3])


def _headers(started: list[Any]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in started[1]]


def _int(raw: bytes | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None
