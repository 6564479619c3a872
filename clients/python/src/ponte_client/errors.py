"""Typed exceptions. Each carries `statusCode`, `error` and `message`, whatever the interface's body
shape: messaging `{statusCode, error, message}`, gateway `{error}`, instance `{status, error, message}`,
bonds `response.status` (HTTP 200)."""

from __future__ import annotations

from typing import Any

import httpx


class PonteError(Exception):
    def __init__(self, statusCode: int, error: str, message: str, *, body: Any = None) -> None:
        super().__init__(f"{statusCode} {error}: {message}")
        self.statusCode = statusCode
        self.error = error
        self.message = message
        self.body = body

    @property
    def status_code(self) -> int:
        return self.statusCode


class BadRequestError(PonteError):
    """400: invalid input; `message` names the fields."""


class AuthenticationError(PonteError):
    """401: the key is missing, invalid, revoked or expired (or sent in the wrong header: see message)."""


class PermissionDeniedError(PonteError):
    """403: the key's role, allowed sessions or IP allow-list, or the plan's cap."""


class NotFoundError(PonteError):
    """404."""


class ConflictError(PonteError):
    """409, e.g. SESSION_NOT_CONNECTED."""


class RateLimitError(PonteError):
    """429 after the retries ran out; `retry_after` is the server's Retry-After in seconds."""

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServerError(PonteError):
    """5xx, e.g. 502 ENGINE_UNAVAILABLE."""


class BondsAccessError(PonteError):
    """The bond list answered a status without bonds: `error` is `unauthorized`, `no_subscription`,
    `payment_issue` or `rate_limited` (HTTP 200, as the bonds contract fixes)."""


_BY_STATUS: dict[int, type[PonteError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def retry_after_of(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def error_from(response: httpx.Response) -> PonteError:
    """The typed exception for an error reply, reading whichever body shape the interface uses."""
    status = response.status_code
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and "error" in body:
        error = str(body["error"])
        message = str(body.get("message") or body.get("hint") or error)
    else:
        error = response.reason_phrase or str(status)
        message = response.text[:500]
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else PonteError)
    if cls is RateLimitError:
        return RateLimitError(status, error, message, body=body, retry_after=retry_after_of(response))
    return cls(status, error, message, body=body)
