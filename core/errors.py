"""Ponte's one exception hierarchy and the single place that turns errors into HTTP replies.

Services raise `ApplicationError` subclasses (never DRF exceptions). Each interface renders the same
error in the body shape its contract fixes:

* messaging (`/api/`): ``{"statusCode": 404, "error": "SESSION_NOT_FOUND", "message": "..."}``
  (plus ``retryAfter`` on 429);
* gateway (`/gateway/`): ``{"error": "Session not found"}``;
* instance interface (`/instances/`): ``{"status": 404, "error": "INSTANCE_NOT_FOUND", "message": "..."}``;
* bonds (`/bonds/`): always HTTP 200, ``{"response": {"status": ..., "description": ...}, "bonds": []}``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ApplicationError(Exception):
    """Base of every error Ponte reports to a caller.

    `code` is the machine-readable code (the messaging `error` field); `gateway_text` is the English
    text of the gateway's `{"error": ...}` body; `extra` carries fields added to the messaging body.
    """

    status_code: int = 500
    code: str = "Internal Server Error"
    gateway_text: str = "Internal server error"
    #: The gateway shows `message` instead of `gateway_text` (validation errors, which name their field).
    gateway_shows_message: bool = False
    default_message: str = "An unexpected error occurred; it has been logged."

    def __init__(self, message: str | None = None, *, extra: dict[str, Any] | None = None) -> None:
        self.message = message or self.default_message
        self.extra = extra or {}
        super().__init__(self.message)

    @property
    def headers(self) -> dict[str, str]:
        return {}


class BadRequest(ApplicationError):
    status_code = 400
    code = "Bad Request"
    gateway_text = "Request body invalid"
    default_message = "The request is not valid."


class ValidationFailed(BadRequest):
    code = "VALIDATION_ERROR"
    default_message = "The request has invalid or missing fields."
    # The gateway says what is wrong and names the field ("url refused: ...", "retryCount: ..."):
    # "Request body invalid" alone left callers guessing which of their fields was refused.
    gateway_shows_message = True


class MalformedBody(ValidationFailed):
    """The body is not JSON at all: there is no field to name, so the gateway keeps its contract text."""

    gateway_shows_message = False


class PayloadTooLarge(ApplicationError):
    status_code = 413
    code = "PAYLOAD_TOO_LARGE"
    gateway_text = "Request body too large"
    default_message = "The request body is larger than this service accepts."


class NotAuthenticated(ApplicationError):
    status_code = 401
    code = "Unauthorized"
    gateway_text = "Unauthorized"
    default_message = "A valid API key is required (missing, invalid, revoked or expired)."

    def __init__(self, message: str | None = None, *, hint: str | None = None, **kwargs: Any) -> None:
        # A hint names the right header when the key came in another interface's header.
        super().__init__(hint or message, **kwargs)
        self.hint = hint

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Ponte-Auth-Hint": self.hint} if self.hint else {}


class Forbidden(ApplicationError):
    status_code = 403
    code = "Forbidden"
    gateway_text = "Forbidden"
    default_message = "This API key has no permission for this resource."


class NotFound(ApplicationError):
    status_code = 404
    code = "Not Found"
    gateway_text = "Not found"
    default_message = "The resource does not exist."


class MethodNotAllowed(ApplicationError):
    status_code = 405
    code = "Method Not Allowed"
    gateway_text = "Method not allowed"
    default_message = "This method is not allowed on this path."


class Conflict(ApplicationError):
    status_code = 409
    code = "CONFLICT"
    gateway_text = "Conflict"
    default_message = "The request conflicts with the resource's current state."


class RateLimited(ApplicationError):
    status_code = 429
    code = "TOO_MANY_REQUESTS"
    gateway_text = "Rate limit exceeded"
    default_message = "Rate limit exceeded; wait before retrying."

    def __init__(self, message: str | None = None, *, retry_after: int, extra: dict | None = None):
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, extra={"retryAfter": self.retry_after, **(extra or {})})

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class ServiceUnavailable(ApplicationError):
    """A dependency the call cannot do without (Redis, the broker) is unreachable; retry shortly."""

    status_code = 503
    code = "SERVICE_UNAVAILABLE"
    gateway_text = "Service temporarily unavailable"
    default_message = "A service this call needs is temporarily unreachable; retry after a few seconds."

    def __init__(self, message: str | None = None, *, retry_after: int = 5) -> None:
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, extra={"retryAfter": self.retry_after})

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


# --- Rendering per interface ---------------------------------------------------------------------


def _messaging_body(error: ApplicationError) -> dict[str, Any]:
    return {"statusCode": error.status_code, "error": error.code, "message": error.message, **error.extra}


def _gateway_body(error: ApplicationError) -> dict[str, Any]:
    hint = getattr(error, "hint", None)
    specific = error.gateway_shows_message and error.message != error.default_message
    text = error.message if specific else error.gateway_text
    return {"error": text, "hint": hint} if hint else {"error": text}


def _instance_body(error: ApplicationError) -> dict[str, Any]:
    code = error.code if error.code.isupper() else error.code.upper().replace(" ", "_")
    return {"status": error.status_code, "error": code, "message": error.message}


# 503: the bond list has no status for "try again later" but `rate_limited` (no bonds, call again later),
# and the description says why; the Retry-After header says when.
_BONDS_STATUS = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    503: "rate_limited",
}
# Every `response.status` an error can give a bonds reply (besides the bond list's own statuses).
BONDS_ERROR_STATUSES: tuple[str, ...] = (*dict.fromkeys(_BONDS_STATUS.values()), "error")


def _bonds_body(error: ApplicationError) -> dict[str, Any]:
    return {
        "response": {"status": _BONDS_STATUS.get(error.status_code, "error"), "description": error.message},
        "bonds": [],
    }


# Mount prefix -> (body builder, whether the HTTP status is kept). Bonds always answers 200.
INTERFACES: dict[str, tuple[Callable[[ApplicationError], dict[str, Any]], bool]] = {
    "/api/": (_messaging_body, True),
    "/gateway/": (_gateway_body, True),
    "/instances/": (_instance_body, True),
    "/bonds/": (_bonds_body, False),
}


def interface_of(path: str) -> str:
    for prefix in INTERFACES:
        if path.startswith(prefix) or path == prefix.rstrip("/"):
            return prefix
    return "/api/"


def error_body(path: str, error: ApplicationError) -> tuple[dict[str, Any], int]:
    builder, keep_status = INTERFACES[interface_of(path)]
    return builder(error), (error.status_code if keep_status else 200)


# --- Translating foreign exceptions ---------------------------------------------------------------


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    """Turn DRF's nested error detail into readable `field: problem` lines."""
    if isinstance(detail, dict):
        lines: list[str] = []
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors":
                name = prefix
            lines.extend(_flatten(value, name))
        return lines
    if isinstance(detail, list):
        lines = []
        for index, value in enumerate(detail):
            nested = isinstance(value, dict | list)
            lines.extend(_flatten(value, f"{prefix}[{index}]" if nested else prefix))
        return lines
    return [f"{prefix}: {detail}" if prefix else str(detail)]


def validation_failed(detail: Any) -> ValidationFailed:
    """A 400 from DRF-style error detail (`{"field": ["problem", ...]}`), one `field: problem` line each."""
    lines = _flatten(detail)
    return ValidationFailed("; ".join(lines) or None, extra={"details": lines})


def _unreachable(exc: Exception) -> bool:
    """Redis or the broker could not be reached (what escapes the fallbacks of core/cache.py and the
    outbox): answered 503 with Retry-After rather than 500."""
    import redis
    from kombu.exceptions import OperationalError

    return isinstance(
        exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | OperationalError
    )


# Set on the request whose database connection was lost, for core.db_outage's one retry of a read.
_DATABASE_LOST_ATTR = "ponte_database_connection_lost"
# PostgreSQL's codes for a connection that is gone: class 08 (connection exceptions) and the operator's
# interventions that end a backend (terminated, crash shutdown, cannot connect now). Not 57014 (a
# statement timeout: the connection is fine).
_CONNECTION_GONE = ("08", "57P01", "57P02", "57P03")


def _connection_lost(exc: BaseException) -> bool:
    """Whether the database error means the connection itself is gone (not a lock or a timeout)."""
    from django.db import InterfaceError, connections

    if isinstance(exc, InterfaceError):  # "connection already closed"
        return True
    for connection in connections.all(initialized_only=True):
        raw = connection.connection
        if raw is not None and (getattr(raw, "broken", False) or getattr(raw, "closed", False) is True):
            return True
    cause = exc.__cause__
    if not hasattr(cause, "sqlstate"):  # not a PostgreSQL error (SQLite's busy database, say)
        return False
    state = cause.sqlstate  # type: ignore[union-attr]
    return state is None or state.startswith(_CONNECTION_GONE)  # None: the client lost the server


def database_outage(request: HttpRequest | None, exc: BaseException | None) -> ServiceUnavailable | None:
    """The 503 for a database that failed the request (a lost connection, a refused one, a lock not
    granted: Django's OperationalError and InterfaceError), noting on `request` whether the connection
    was lost; None for anything else. Not a bug to trace: one warning line, and the caller retries."""
    from django.db import InterfaceError, OperationalError

    if not isinstance(exc, OperationalError | InterfaceError):
        return None
    if request is not None:
        setattr(request, _DATABASE_LOST_ATTR, _connection_lost(exc))
    logger.warning(
        "Database unavailable during %s %s: %s: %s",
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
        type(exc).__name__,
        str(exc).strip()[:200],
    )
    return ServiceUnavailable(
        "The database is temporarily unavailable; retry after a few seconds.", retry_after=2
    )


def database_connection_lost(request: HttpRequest) -> bool:
    """Whether `database_outage` answered this request for a lost connection; the note is cleared."""
    lost = bool(getattr(request, _DATABASE_LOST_ATTR, False))
    if hasattr(request, _DATABASE_LOST_ATTR):
        delattr(request, _DATABASE_LOST_ATTR)
    return lost


def as_application_error(exc: Exception) -> ApplicationError | None:
    """Map Django and DRF exceptions onto the hierarchy; None for unexpected exceptions."""
    if isinstance(exc, ApplicationError):
        return exc
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge()
    if isinstance(exc, SuspiciousOperation):  # too many fields, bad headers: Django logs these itself
        return BadRequest(str(exc) or None)
    if isinstance(exc, drf_exceptions.ValidationError):
        return validation_failed(exc.detail)
    if isinstance(exc, DjangoValidationError):
        lines = (
            [f"{k}: {m}" for k, msgs in exc.message_dict.items() for m in msgs]
            if hasattr(exc, "error_dict")
            else list(exc.messages)
        )
        return ValidationFailed("; ".join(lines) or None, extra={"details": lines})
    if isinstance(exc, drf_exceptions.ParseError):
        return MalformedBody(f"Malformed request body: {exc.detail}")
    if isinstance(exc, drf_exceptions.UnsupportedMediaType):
        return BadRequest(f"{exc.detail} Send Content-Type: application/json.")
    if isinstance(exc, drf_exceptions.NotAuthenticated | drf_exceptions.AuthenticationFailed):
        return NotAuthenticated()
    if isinstance(exc, drf_exceptions.PermissionDenied | DjangoPermissionDenied):
        detail = getattr(exc, "detail", None)
        return Forbidden(str(detail) if detail else None)
    if isinstance(exc, drf_exceptions.NotFound | Http404):
        return NotFound()
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf_exceptions.NotAcceptable):
        return BadRequest(str(exc.detail))
    if isinstance(exc, drf_exceptions.Throttled):
        return RateLimited(retry_after=int(exc.wait or 1))
    if _unreachable(exc):
        return ServiceUnavailable()
    if isinstance(exc, drf_exceptions.APIException):
        error = ApplicationError(str(exc.detail))
        error.status_code = exc.status_code
        error.code = HTTPStatus(exc.status_code).phrase
        return error
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER: one hierarchy, rendered in the shape of the request's interface."""
    request = context.get("request")
    error = as_application_error(exc) or database_outage(getattr(request, "_request", request), exc)
    if error is None:
        logger.exception("Unhandled error in %s", getattr(request, "path", "?"), exc_info=exc)
        error = ApplicationError()
    # Roll back whatever the request wrote (ATOMIC_REQUESTS), as DRF's own handler does. Imported
    # here: rest_framework.views loads the authentication classes, which import this module.
    from rest_framework.views import set_rollback

    if getattr(context.get("view"), "request_transaction", True):
        # A view with no request transaction (core.transactions) has none to roll back: its
        # services' own blocks rolled back on the way out (and, in a test, the innermost block open
        # is the test case's, which must not be marked).
        set_rollback()
    body, status = error_body(getattr(request, "path", "/api/"), error)
    return Response(body, status=status, headers=error.headers)


def json_error_response(request: HttpRequest, error: ApplicationError) -> JsonResponse:
    """Render an error outside DRF (unknown routes, Django's 404/500 handlers)."""
    body, status = error_body(request.path, error)
    response = JsonResponse(body, status=status)
    for name, value in error.headers.items():
        response[name] = value
    return response
