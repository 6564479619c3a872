"""A small client of Meta's Graph API: `PONTE_GRAPH_API_URL` + `/` + `PONTE_GRAPH_API_VERSION` + path.

The Graph API is a URL Ponte's operator configures, not one a customer gives, so a plain `requests`
session is used (not net/'s SSRF-safe transport), always with a timeout. Every failure is a GraphError
carrying Meta's `{error: {message, type, code, error_subcode, fbtrace_id}}` fields.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import requests
from django.conf import settings

from net.guard import outside_call_check

logger = logging.getLogger(__name__)

_session = requests.Session()

#: Graph error codes Ponte treats specially.
TOKEN_INVALID = 190
RATE_LIMIT_CODES = (4, 80007, 130429, 131056)
OUTSIDE_WINDOW = 131047


@dataclass
class GraphError(Exception):
    """The Graph API refused a call (or could not be reached: `status` 0, `code` 0)."""

    status: int
    message: str
    code: int = 0
    subcode: int = 0
    type: str = ""
    fbtrace_id: str = ""
    retry_after: int = 0

    def __str__(self) -> str:
        code = f" (code {self.code}" + (f"/{self.subcode}" if self.subcode else "") + ")" if self.code else ""
        return f"{self.message}{code}"

    @property
    def unreachable(self) -> bool:
        return self.status == 0 or (self.status >= 500 and not self.code)


def url(path: str) -> str:
    return f"{settings.PONTE_GRAPH_API_URL}/{settings.PONTE_GRAPH_API_VERSION}/{path.lstrip('/')}"


def _retry_after(response: requests.Response) -> int:
    try:
        return max(0, int(response.headers.get("Retry-After", "0")))
    except ValueError:
        return 0


def call(
    method: str, path: str, token: str, *, json: dict | None = None, params: dict | None = None
) -> dict[str, Any]:
    """One Graph API call; the decoded JSON body, or GraphError."""
    outside_call_check("Graph API %s %s", method, path)
    try:
        response = _session.request(
            method,
            url(path),
            json=json,
            params=params,
            headers={"Authorization": f"Bearer {token}"},
            timeout=settings.PONTE_GRAPH_API_TIMEOUT_SECONDS,
            allow_redirects=False,
        )
    except requests.RequestException as exc:
        logger.warning("Graph API %s %s unreachable: %s", method, path, exc)
        raise GraphError(0, f"The Graph API could not be reached ({type(exc).__name__}).") from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code < 400 and isinstance(body, dict) and "error" not in body:
        return body
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        raise GraphError(response.status_code, f"The Graph API answered HTTP {response.status_code}.")
    raise GraphError(
        status=response.status_code,
        message=str(error.get("message") or "Graph API error"),
        code=int(error.get("code") or 0),
        subcode=int(error.get("error_subcode") or 0),
        type=str(error.get("type") or ""),
        fbtrace_id=str(error.get("fbtrace_id") or ""),
        retry_after=_retry_after(response),
    )
