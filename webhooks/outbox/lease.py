"""Claim heartbeats: a drain's claims (and its send slot) are renewed while it runs, so the lease can be
short and a killed worker's deliveries are free again within seconds.

A claim is taken for PONTE_WEBHOOK_CLAIM_LEASE_SECONDS (`claimed_at`); a POST may take longer than that
(a receiver's timeout). One daemon thread per process renews, every quarter lease, the claims held for
longer than that: one UPDATE of `claimed_at` for all of them, and the slot keys' expiry in the cache. A
worker killed with SIGKILL stops renewing, so its claims lapse one lease after its last beat and the
sweeper (or a new worker's start-up sweep) hands them over. Drains that end within a quarter lease, the
usual case, never touch the database here.

If renewing fails (the database or the cache away for a moment) the claim may lapse and another drain
may send the delivery again with the same id: at-least-once, as documented; the outcome is written only
by the claim's holder.

The Keeper is not tied to deliveries: another outbox (the Chatwoot mirror's jobs) builds its own with its
lease and the UPDATE that renews its claims.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

logger = logging.getLogger(__name__)


def lease_seconds() -> float:
    return float(settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS)


def renew_interval() -> float:
    return max(0.2, lease_seconds() / 4)


def _deliveries_renew(tokens: list[str]) -> int:
    from webhooks.models import Delivery

    return Delivery.objects.filter(claim_token__in=tokens, status=Delivery.Status.SENDING).update(
        claimed_at=timezone.now()
    )


class Keeper:
    """Renews, from one daemon thread, the claims its holders registered (`claim`): `renew` takes the
    claim tokens due and sets their `claimed_at` to now; `lease` gives the lease in seconds."""

    def __init__(
        self,
        *,
        background: bool = True,
        lease: Callable[[], float] = lease_seconds,
        renew: Callable[[list[str]], int] = _deliveries_renew,
        name: str = "webhooks-lease",
    ) -> None:
        self._lease = lease
        self._renew = renew
        self._name = name
        self._lock = threading.Lock()
        self._claims: dict[str, float] = {}  # claim token -> when last renewed (monotonic)
        self._slots: dict[str, float] = {}  # slot cache key -> when last renewed
        self._background = background
        self._thread: threading.Thread | None = None
        # Called on every beat after the renewals (the outbox's helper for batches out for long).
        self.on_beat: Callable[[], None] | None = None

    @contextlib.contextmanager
    def claim(self, token: str) -> Iterator[None]:
        self._add(self._claims, token)
        try:
            yield
        finally:
            self._remove(self._claims, token)

    @contextlib.contextmanager
    def slot(self, key: str | None) -> Iterator[None]:
        if not key:
            yield
            return
        self._add(self._slots, key)
        try:
            yield
        finally:
            self._remove(self._slots, key)

    def _add(self, table: dict[str, float], key: str) -> None:
        with self._lock:
            table[key] = time.monotonic()
            if self._background and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def _remove(self, table: dict[str, float], key: str) -> None:
        with self._lock:
            table.pop(key, None)

    def _due(self, table: dict[str, float], now: float) -> list[str]:
        with self._lock:
            due = [key for key, renewed in table.items() if now - renewed >= self.renew_interval()]
            for key in due:
                table[key] = now
            return due

    def _run(self) -> None:
        while True:
            time.sleep(self.renew_interval() / 2)
            try:
                self.renew_due()
                if self.on_beat is not None:
                    self.on_beat()
            except Exception:  # never let the heartbeat die: the next beat tries again
                logger.exception("Could not renew claims (%s)", self._name)
            finally:
                # A thread's connection is not closed by request or task signals: do not keep it open.
                connection.close()

    def renew_interval(self) -> float:
        return max(0.2, self._lease() / 4)

    def renew_due(self) -> int:
        """Renew the claims and slots held for a quarter lease or more; how many claims were renewed."""
        now = time.monotonic()
        claims, slots = self._due(self._claims, now), self._due(self._slots, now)
        for key in slots:
            cache.touch(key, timeout=int(self._lease()) or 1)
        if not claims:
            return 0
        return self._renew(claims)


keeper = Keeper()


def oldest_claim_lapse_in(claims: QuerySet, lease: timedelta) -> float | None:
    """Seconds until the oldest of `claims` (rows being sent, with `claimed_at`) lapses unless renewed;
    None when nothing is claimed. A starting worker sweeps then: what a killed worker held is free from
    that moment."""
    oldest = claims.order_by("claimed_at").values_list("claimed_at", flat=True).first()
    if oldest is None:
        return None
    return max(0.0, (oldest + lease - timezone.now()).total_seconds())
