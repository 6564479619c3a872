"""A delivery batch's attempts (the deliveries' `attempt` as a queue of the job system, webhooks.outbox.
deliveries): each claimed delivery POSTed in order on its target's keep-alive connection
(webhooks.outbox.posting), paced by its webhook's rate limit (webhooks.outbox.rate_limit), the batch
stopped by a slow answer or the drain's deadline (webhooks.outbox.throttle)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from webhooks.outbox import posting, rate_limit, throttle
from webhooks.outbox.store import Claimed


@dataclass
class Paced:
    """Deliveries of a batch held back by their webhooks' rate limits (webhooks.outbox.rate_limit): given
    back, due again in `seconds`, no attempt used."""

    deliveries: list[Claimed]
    seconds: float


def _paced(held: dict[str, float], deliveries: list[Claimed]) -> Paced | None:
    return Paced(deliveries, max(held.values())) if deliveries else None


def send_batch(
    batch: list[Claimed], *, deadline: float
) -> tuple[list[posting.Sent], list[Claimed], bool, Paced | None]:
    """POST the batch in order: (sent, not sent, target found slow, held back by a rate limit). A slow
    or timed-out answer, or the drain's deadline, stops the batch: the rest is given back rather than
    held behind a bad receiver. A webhook's rate limit paces each of its POSTs; when no place in its
    window frees soon, its deliveries in the batch wait for one and the others go on."""
    sent: list[posting.Sent] = []
    held: dict[str, float] = {}  # webhook id: seconds until its window has a place
    waiting: list[Claimed] = []
    for index, delivery in enumerate(batch):
        ticket = None if delivery.webhook_id in held else rate_limit.pace(delivery)
        if isinstance(ticket, float):
            held[str(delivery.webhook_id)] = ticket
        if delivery.webhook_id in held:
            waiting.append(delivery)
            continue
        try:
            outcome = posting.attempt(delivery)
        finally:
            rate_limit.release(ticket)
        sent.append(outcome)
        result = outcome.result
        slow = result is not None and throttle.is_too_slow(result.duration_ms, result.error)
        if slow or time.monotonic() >= deadline:
            return sent, batch[index + 1 :], slow, _paced(held, waiting)
    return sent, [], False, _paced(held, waiting)
