"""What an HTTP request header may be, as Ponte sends them: names that are tokens and values of printable
ASCII, each matched against the whole string.

Python's `$` also matches before a final line feed, so a pattern checked with `match` and `$` let
`"abc\n"` through, and http.client then refused the header (ValueError) while the request was built.
Ponte checks headers where customers set them (webhooks.registered.custom_headers) and again where a
request is built from stored ones (webhooks.outbox.posting), with these same rules.
"""

from __future__ import annotations

import re
from typing import Any

# An HTTP field name is a token (RFC 9110, 5.1 and 5.6.2).
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Printable ASCII and spaces: no control character anywhere (CR, LF, NUL, tab, DEL), which could end the
# header early or be refused by the HTTP client, and nothing it could not put on the wire as it is.
_VALUE = re.compile(r"[\x20-\x7e]*")


def is_name(name: Any) -> bool:
    return isinstance(name, str) and _TOKEN.fullmatch(name) is not None


def is_value(text: Any) -> bool:
    return isinstance(text, str) and _VALUE.fullmatch(text) is not None


def unsendable(headers: Any) -> str | None:
    """Why `headers` ({name: value}) cannot be sent, naming the header but never quoting its value (it
    may be a credential); None when every one can."""
    if not isinstance(headers, dict):
        return "the headers are not an object of names to values"
    for name, text in headers.items():
        if not is_name(name):
            return f"{name!r} is not a valid header name"
        if not is_value(text):
            return f"the value of {name} is not printable ASCII (a line break or another control character)"
    return None
