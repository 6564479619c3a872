"""One clock per log line: under `make run` honcho prefixes each line with its time, so the app's plain
lines drop theirs (PONTE_LOG_CLOCK=off); by default they keep it (issue 45)."""

from __future__ import annotations

import logging

from core.logs import CELERY_PLAIN_FORMAT, PLAIN_FORMAT, celery_handlers_configured, without_clock


def record() -> logging.LogRecord:
    line = logging.LogRecord("ponte.request", logging.INFO, __file__, 1, "GET /healthz 200", None, None)
    line.request_id = "abc"
    return line


def test_plain_lines_without_a_clock_start_with_their_level() -> None:
    assert logging.Formatter(without_clock(PLAIN_FORMAT)).format(record()) == (
        "INFO ponte.request [abc]: GET /healthz 200"
    )
    assert "%(asctime)s" in PLAIN_FORMAT  # the default keeps its clock


def test_celery_lines_drop_their_clock_only_when_asked() -> None:
    logger = logging.getLogger("test-log-clock")
    logger.handlers = [logging.StreamHandler()]
    celery_handlers_configured(logger, json_lines=False, clock=False)
    assert logger.handlers[0].formatter.format(record()).startswith("[INFO/MainProcess] [abc] GET")
    celery_handlers_configured(logger, json_lines=False)
    assert logger.handlers[0].formatter._fmt == CELERY_PLAIN_FORMAT
