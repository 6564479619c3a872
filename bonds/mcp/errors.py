"""Bad tool arguments in words: one sentence per field ("amount must be greater than 0."), instead of the
SDK's raw pydantic report ("2 validation errors for project_bondArguments ... For further information
visit https://errors.pydantic.dev/..."), which an assistant relays to a person as it is (issue 45)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

# Pydantic's phrasings, as a sentence about the field.
_REWORDED = (
    (re.compile(r"^Field required$"), "is required"),
    (re.compile(r"^Extra inputs are not permitted$"), "is not an argument of this tool"),
    (re.compile(r"^Input should be "), "must be "),
    (re.compile(r"^Value error, "), ""),
    (re.compile(r"^Assertion failed, "), ""),
)


def _sentence(error: dict[str, Any]) -> str:
    field = ".".join(str(part) for part in error["loc"]) or "the arguments"
    message = str(error["msg"])
    for pattern, replacement in _REWORDED:
        message = pattern.sub(replacement, message)
    if field in message.split(" ", 1)[0]:  # a validator that already names its field
        return message.rstrip(".") + "."
    return f"{field} {message[:1].lower()}{message[1:]}".rstrip(".") + "."


def readable_arguments_error(tool: str, error: ValidationError) -> str:
    """`tool`'s refusal: one sentence per field, in the order pydantic found them."""
    sentences: list[str] = []
    for item in error.errors(include_url=False):
        sentence = _sentence(item)
        if sentence not in sentences:
            sentences.append(sentence)
    return f"{tool} was called with bad arguments: " + " ".join(sentences)
