"""A delivery hint's work: drain its target (webhooks.outbox.deliveries' queue, through the job
system's one drain loop) while anything is due there, then say what became of the delivery.

A module of its own, above the queue: this drain calls `jobs.drain.run` with the queue's turns
(`deliveries.TargetDrain`), and the loop calls those turns, so nothing calls back into a module still on
the stack (issue 40's paths, tests/module_path.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings

from jobs import drain
from webhooks.outbox import deliveries, throttle
from webhooks.outbox.deliveries import FINISHED, WAITING, TargetDrain
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.store import store


@dataclass
class Drained:
    """What one drain of a target did: outcomes by delivery id; `no_slot`: every send slot was held,
    nothing was tried; `flag_down`: it found nothing more in time, and lowered the target's hint flag."""

    outcomes: dict[int, str]
    no_slot: bool = False
    flag_down: bool = False
    slow: bool = False  # the target's slow mark as this drain left it (throttle.remember_speed)


def _drain(target_url: str, *, deadline: float, hint_id: int) -> Drained:
    """Send what is due at one target while holding one of its slots, through the job system's drain
    loop: batches of PONTE_WEBHOOK_BATCH_SIZE (one delivery at a time to a slow target) until nothing
    more is due, the target is slow, a rate limit holds deliveries back or the time is up."""
    slot, was_slow = throttle.slot_take(target_url)
    if slot is None:
        return Drained({}, no_slot=True)  # every slot is held, and each holder looks again when it lets go
    turns = TargetDrain(target_url, hint_id=hint_id, was_slow=was_slow)
    drained = Drained({})
    try:
        with turns.keeper.slot(slot):
            limit = 1 if was_slow else int(settings.PONTE_WEBHOOK_BATCH_SIZE)
            ran = drain.run(turns, target_url, limit=limit, deadline=deadline)
            drained.outcomes = ran.outcomes
            drained.flag_down = ran.exhausted and time.monotonic() < deadline
    finally:
        # Nothing more found: the hint flag goes down with the slot, one round trip for both.
        throttle.slot_release(slot, hint_taken_for=target_url if drained.flag_down else None)
        slow, answered = turns.slow, turns.answered
        throttle.remember_speed(target_url, slow=slow, answered=answered and not slow, was_slow=was_slow)
        drained.slow = slow or (was_slow and not answered)
    return drained


def delivery_attempt(*, delivery_id: int, target_url: str = "") -> str:
    """Handle a hint: drain the delivery's target if anything is due there; what became of the delivery.

    The target's hint flag (webhooks.outbox.throttle) stays set while the drain runs, so the events committed
    meanwhile add no hints: this drain takes them in its next batch. Only when it finds nothing more
    does it clear the flag, then looks once more: a delivery committed just before the flag was cleared
    is sent here, one committed after publishes its own hint. The look also finds what became due
    meanwhile without a commit (a claim that lapsed, a retry's time): never skip it (decision 0039).

    "delivered", "retry" or "dead" when it was attempted here; "done" when it had already finished;
    "not-claimed" when it was not due, or held, or left for another drain; "missing" when it is gone.
    `target_url`: the delivery's target, as the hint carries it (else it is looked up).
    """
    if not target_url:
        row = store().delivery_hint(delivery_id)
        if row is None:
            return "missing"
        target_url = row[1]
    deadline = time.monotonic() + float(settings.PONTE_WEBHOOK_DRAIN_SECONDS)
    outcomes: dict[int, str] = {}
    while True:
        drained = _drain(target_url, deadline=deadline, hint_id=delivery_id)
        outcomes.update(drained.outcomes)
        if drained.no_slot:
            break  # the slots' holders clear the flag and look again when they let go
        if not drained.flag_down:  # stopped (a slow target) or out of time
            if deliveries.due_exists(target_url):
                # A new hint waits behind other targets' hints (a slow target's, a moment more).
                delay = float(settings.PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS) if drained.slow else 0
                enqueue_on_commit([(delivery_id, target_url)], countdown=delay, force=True)
            break
        # The last claim found no more than it took: nothing else was due then, and the flag is down.
        if not deliveries.due_exists(target_url) or not throttle.hint_wanted(target_url):
            break  # nothing left, or a newer hint is on its way for what is
    if delivery_id in outcomes:
        return outcomes[delivery_id]
    row = store().delivery_hint(delivery_id)  # not sent here: say why
    if row is None:
        return "missing"
    status, current_url = row
    if current_url != target_url and status in WAITING:
        # The webhook's URL was changed after the hint left: drain where the delivery goes now.
        return delivery_attempt(delivery_id=delivery_id, target_url=current_url)
    return "done" if status in FINISHED else "not-claimed"
