"""Logging filters: routine lines kept out of the console, and secrets out of every line."""

from __future__ import annotations

import logging
import re

# Periodic housekeeping that runs every few seconds: its "sending due task", "received" and
# "succeeded" lines would bury everything else. Failures are still logged (WARNING and above).
ROUTINE_TASKS = (
    "webhooks.sweep_deliveries",
    "integrations.chatwoot.sweep",
    "messaging.channels.inbound_sweep",
)


class RoutineTasks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        message = record.getMessage()
        return not any(task in message for task in ROUTINE_TASKS)


# Credentials that may end up in a log line's text, whoever wrote it (Django's "Bad Request: <path>",
# uvicorn's WebSocket lines with their query string, a traceback): each pattern keeps what says where the
# secret was and replaces the secret itself with ***.
_HIDDEN = "***"
_PART = r"[^/\s?#&\"'<>]+"
_SECRETS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Paths whose parts are credentials: instance keys, the Chatwoot receiving token, signed media
    # links, the account area's e-mailed link tokens.
    (re.compile(rf"(/instances/){_PART}"), rf"\1{_HIDDEN}"),
    (re.compile(rf"(/integrations/chatwoot/){_PART}"), rf"\1{_HIDDEN}"),
    (re.compile(rf"(/api/media/){_PART}"), rf"\1{_HIDDEN}"),
    (re.compile(rf"(/account/(?:reset|verify)/){_PART}/{_PART}"), rf"\1{_HIDDEN}/{_HIDDEN}"),
    # Query parameters that carry one: the bonds interface's key, the live socket's apiKey, Meta's
    # hub.verify_token, tokens and signatures.
    (
        re.compile(
            r"([?&;](?:api[-_]?key|key|token|access[-_]token|hub\.verify_token|verify[-_]token|secret|"
            r"signature|password)=)[^&\s\"'#<>]*",
            re.IGNORECASE,
        ),
        rf"\1{_HIDDEN}",
    ),
    # Header values, as a dict, an environ or a header line prints them.
    (
        re.compile(
            r"((?:http_)?(?:authorization|x[-_]api[-_]key|x[-_]hub[-_]signature(?:[-_]256)?|"
            r"x[-_]chatwoot[-_]signature|x[-_]webhook[-_]signature|webhook[-_]signature|cookie)"
            r"[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;}]+",
            re.IGNORECASE,
        ),
        rf"\1{_HIDDEN}",
    ),
    (re.compile(r"(\bbearer\s+)[^\s\"',;}]+", re.IGNORECASE), rf"\1{_HIDDEN}"),
    # A Ponte API key anywhere (accounts/keys.py: ponte_<prefix>_<secret>); the prefix is no secret.
    (re.compile(r"\b(ponte_[a-z0-9]{8}_)[A-Za-z0-9_-]+"), rf"\1{_HIDDEN}"),
)


def redacted(text: str) -> str:
    """`text` with every credential Ponte knows the shape or place of replaced by ***."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class SecretRedaction(logging.Filter):
    """On every handler that prints (the root's, Celery's, uvicorn's): no line of any logger carries a
    key, an instance key, a token or a signature, in its message, its JSON fields or its traceback."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: the formatter reports it as logging always does
            return True
        clean = redacted(message)
        if clean != message:
            record.msg, record.args = clean, None
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            record.fields = {k: redacted(v) if isinstance(v, str) else v for k, v in fields.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redacted(record.exc_text)
        if record.stack_info:
            record.stack_info = redacted(record.stack_info)
        return True


def redact_handlers(logger: logging.Logger) -> None:
    """Give each of `logger`'s own handlers the redaction (once)."""
    for handler in logger.handlers:
        if not any(isinstance(f, SecretRedaction) for f in handler.filters):
            handler.addFilter(SecretRedaction())
