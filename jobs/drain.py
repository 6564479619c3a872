"""The one drain loop of the job system: claim → attempt → settle, turn after turn, for every queue.

A turn claims up to `limit` due jobs of one group with one claim token, holds that claim renewed
(jobs.lease) while the client attempts them, gives back what it did not attempt (no attempt used) and
settles the rest (jobs.policy: delivered, retried on the schedule, or dead). The client chooses the
shape of a turn:

* order per group (jobs.queue.Queue: the Chatwoot mirror, the event stream, the official channels'
  inbound rows and calls): a claim takes the group's head alone (`limit` 1), so a job waiting for its
  retry holds the group's later jobs back and a dead one lets them go;
* batches (webhooks.outbox.deliveries: a group is a target): a claim takes up to a batch of due rows,
  attempted one after another on one keep-alive connection and settled in one write.

The loop ends when a claim finds nothing or fewer than it asked (nothing more was due), after `turns`
turns, at the `deadline`, or when the client says stop (a slow target, a rate limit). A drain that
settled a retry, or ran a job that was itself a retry, wakes its group for the next time the ledger
holds (`wake`: the job tables' `next_attempt_at`, docs/decisions/0024): the ledger is the one thing that
schedules retries.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from jobs.lease import Keeper


@dataclass
class Claim:
    """Jobs one turn claimed, under one claim token."""

    token: str
    jobs: list[Any]


@dataclass
class Attempted:
    """What a turn's attempts came to: `done` (the client's records of each attempt, settled next),
    `unsent` (claimed jobs not attempted: given back), `stop` (the client ends the drain after this
    turn)."""

    done: list[Any]
    unsent: list[Any] = field(default_factory=list)
    stop: bool = False


@dataclass
class Drained:
    """What a drain did: outcomes by job id, turns taken; `exhausted`: a claim found nothing more due;
    `stopped`: the client or the deadline ended it; `woken`: `wake` was called."""

    outcomes: dict[int, str] = field(default_factory=dict)
    turns: int = 0
    exhausted: bool = False
    stopped: bool = False
    woken: bool = False  # the group was woken for its next due time (`Turns.wake`)


class Turns(Protocol):
    """What the loop needs of a queue (jobs.queue.Queue; the deliveries' per-target drain)."""

    keeper: Keeper

    def claim(self, group: Any, *, limit: int) -> Claim | None:
        """Claim up to `limit` due jobs of `group`; None when none is due."""

    def holding(self, claim: Claim) -> Iterator[None]:
        """The context the turn's claim is held in (renewed by the keeper)."""

    def attempt(self, claim: Claim, *, deadline: float | None) -> Attempted:
        """Attempt the claimed jobs; never raises for one job's failure."""

    def unclaim(self, claim: Claim, jobs: list[Any]) -> None:
        """Give back claimed jobs that were not attempted."""

    def settle(self, claim: Claim, attempted: Attempted) -> dict[int, str]:
        """Record each attempt's end (only while the claim holds it): {job id: outcome}."""

    def wake(self, group: Any) -> None:
        """Ask for a drain of `group` when its next job is due, as the ledger says."""


def run(
    queue: Turns, group: Any, *, limit: int = 1, turns: int | None = None, deadline: float | None = None
) -> Drained:
    """Drain `group` of `queue`: claim → attempt → settle until nothing more is due (or `turns`, the
    `deadline`, the client's stop)."""
    drained = Drained()
    retried = False
    while turns is None or drained.turns < turns:
        claim = queue.claim(group, limit=limit)
        if claim is None or not claim.jobs:
            drained.exhausted = True
            break
        with queue.holding(claim):
            attempted = queue.attempt(claim, deadline=deadline)
            if attempted.unsent:
                queue.unclaim(claim, attempted.unsent)
            outcomes = queue.settle(claim, attempted)
        drained.outcomes.update(outcomes)
        drained.turns += 1
        retried = retried or "retry" in outcomes.values() or any(j.attempt_count > 0 for j in claim.jobs)
        if attempted.stop or (deadline is not None and time.monotonic() >= deadline):
            drained.stopped = True
            break
        if len(claim.jobs) < limit:
            drained.exhausted = True
            break
    if retried:
        queue.wake(group)
        drained.woken = True
    return drained
