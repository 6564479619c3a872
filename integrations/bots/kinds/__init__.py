"""The bot kinds: each turns a chat's turn (the customer's messages) into replies by calling its
service. They share the call (`call_json`: the SSRF-safe transport, bounded in time and size) and the
shape of a reply (`Reply`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import requests

from net.transport import UnsafeTarget, http_session, refused_address_in

# An answer larger than this is refused (a chat reply is a few KB; Typebot's richest turns ~50 KB).
MAX_ANSWER_BYTES = 512 * 1024
# Statuses that say "try again later" rather than "this request is wrong".
PASSING = frozenset({408, 425, 429})


class BotCallFailed(Exception):
    """The bot's service did not answer usefully. `retry`: worth trying again (unreachable, timed out,
    5xx, throttled); else a refusal that repeating cannot change (4xx, an answer not in the format)."""

    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


@dataclass(frozen=True)
class Reply:
    """One message to send: `kind` "text" (`text`), "media" (`media`: type, url or base64, caption,
    fileName) or "list" (`list`: text, buttonText, title, footer, sections)."""

    kind: str
    text: str = ""
    media: dict[str, Any] = field(default_factory=dict)
    list: dict[str, Any] = field(default_factory=dict)


@dataclass
class Turn:
    """What a kind gets: the bot, the chat, the customer's messages joined (`text`) and as they came
    (`items`, each with the message's registered-webhook `data`), and the conversation's `state`,
    which the kind may change (kept for the next turn)."""

    bot: Any
    chat: str
    text: str
    items: list[dict[str, Any]]
    state: dict[str, Any]
    job_id: int
    ended: bool = False  # the kind says the conversation is over (a Typebot flow that finished)


def call_json(
    method: str, url: str, *, body: bytes, headers: dict[str, str], timeout: float
) -> tuple[int, Any]:
    """Send `body` and read a JSON answer of at most MAX_ANSWER_BYTES within `timeout` seconds;
    (status, parsed answer or None for an empty body). Raises BotCallFailed."""
    try:
        response = http_session().request(
            method, url, data=body, headers=headers, timeout=timeout, allow_redirects=False, stream=True
        )
    except requests.RequestException as exc:
        if refused_address_in(exc) is not None:
            refused = "the bot's address is not allowed (a private or local network)"
            raise BotCallFailed(refused, retry=False) from None
        kind = "timed out" if isinstance(exc, requests.Timeout) else "could not be reached"
        raise BotCallFailed(f"the bot's service {kind}", retry=True) from None
    with response:
        raw = _read_bounded(response)
        status = response.status_code
    if status >= 400:
        retry = status >= 500 or status in PASSING
        excerpt = raw[:300].decode("utf-8", errors="replace")
        raise BotCallFailed(f"the bot's service answered HTTP {status}: {excerpt}", retry=retry)
    if not raw.strip():
        return status, None
    try:
        return status, json.loads(raw)
    except ValueError:
        raise BotCallFailed("the bot's service answered something that is not JSON", retry=False) from None


def _read_bounded(response: requests.Response) -> bytes:
    declared = response.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise BotCallFailed(f"the bot's answer is larger than {MAX_ANSWER_BYTES} bytes", retry=False)
    content = b""
    try:
        for chunk in response.iter_content(chunk_size=64 * 1024):
            content += chunk
            if len(content) > MAX_ANSWER_BYTES:
                raise BotCallFailed(f"the bot's answer is larger than {MAX_ANSWER_BYTES} bytes", retry=False)
    except requests.RequestException:
        raise BotCallFailed("the bot's service stopped answering midway", retry=True) from None
    return content


__all__ = ["BotCallFailed", "Reply", "Turn", "UnsafeTarget", "call_json"]
