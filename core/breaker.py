"""A small circuit breaker for a dependency that may go away (Redis as cache, Redis as broker).

After a failure the dependency is skipped for `PONTE_REDIS_RETRY_SECONDS` (read when the breaker opens,
so a breaker made at import follows the setting in force), so every request of an outage pays the
fallback instead of waiting on a dead server's connect timeout; then the next call tries it again (and
closes the breaker when that works). Per process and thread-safe; nothing here is shared.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings

logger = logging.getLogger(__name__)


class Breaker:
    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._open_until = 0.0
        self._down_since: float | None = None

    @property
    def down(self) -> bool:
        """The last call failed and no call has worked since (the dependency is being replaced)."""
        return self._down_since is not None

    def available(self) -> bool:
        """Whether to try the dependency now: closed, or open long enough for another try."""
        return time.monotonic() >= self._open_until

    def failed(self, error: BaseException) -> None:
        with self._lock:
            now = time.monotonic()
            self._open_until = now + float(settings.PONTE_REDIS_RETRY_SECONDS)
            first = self._down_since is None
            if first:
                self._down_since = now
        if first:
            logger.warning("%s unreachable (%s: %s); falling back", self.name, type(error).__name__, error)

    def succeeded(self) -> bool:
        """Record a working call; True when it ends an outage (the caller may then catch up)."""
        if self._down_since is None:
            return False
        with self._lock:
            since, self._down_since, self._open_until = self._down_since, None, 0.0
        if since is None:
            return False
        logger.warning("%s reachable again after %.1f s", self.name, time.monotonic() - since)
        return True
