"""Claim heartbeats (jobs.lease) and the sweeper's schedule: a running drain keeps its claims, a
dead one's lapse after one lease."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from jobs.lease import Keeper
from webhooks.models import Delivery
from webhooks.outbox import deliveries as outbox
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_lease(settings) -> None:
    settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS = 2  # renewed every 0.5 s


def _claimed(session, hook) -> tuple[str, Delivery]:
    event = emit(session_id=session.id, name="message", data={"id": "M1"})
    delivery = Delivery.objects.get(event=event)
    token, _ = outbox.deliveries_claim(delivery.target_url, limit=10)
    return token, delivery


def test_a_claim_held_past_a_quarter_lease_is_renewed_and_cannot_be_taken(session, hook, short_lease):
    keeper = Keeper(outbox.TABLE, background=False)
    token, delivery = _claimed(session, hook)
    with keeper.claim(token):
        time.sleep(0.6)
        old = timezone.now() - timedelta(seconds=1.9)  # about to lapse
        Delivery.objects.filter(pk=delivery.pk).update(claimed_at=old)
        assert keeper.renew_due() == 1
        delivery.refresh_from_db()
        assert delivery.claimed_at > old
        time.sleep(0.2)
        assert outbox.deliveries_claim(delivery.target_url, limit=10)[1] == []  # still held


def test_a_fresh_claim_is_not_renewed_so_quick_drains_cost_no_extra_query(session, hook, short_lease):
    keeper = Keeper(outbox.TABLE, background=False)
    token, _ = _claimed(session, hook)
    with keeper.claim(token):
        assert keeper.renew_due() == 0


def test_a_claim_nobody_renews_lapses_after_one_lease(session, hook, short_lease):
    _token, delivery = _claimed(session, hook)  # its worker died: no keeper renews it
    Delivery.objects.filter(pk=delivery.pk).update(claimed_at=timezone.now() - timedelta(seconds=2.1))
    assert [c.pk for c in outbox.deliveries_claim(delivery.target_url, limit=10)[1]] == [delivery.pk]


# Slow (tests/tiers.py): waits past a real lease expiry.
@pytest.mark.slow
def test_a_held_send_slot_is_kept_alive_while_the_drain_runs(short_lease):
    keeper = Keeper(outbox.TABLE, background=False)
    cache.add("lease-test-slot", 1, timeout=2)
    with keeper.slot("lease-test-slot"):
        time.sleep(0.6)
        keeper.renew_due()
        time.sleep(1.6)  # past the first expiry
        assert cache.get("lease-test-slot") == 1


def test_the_next_lapse_is_when_the_oldest_claim_runs_out(session, hook, short_lease):
    assert outbox.QUEUE.next_lapse_in() is None
    _claimed(session, hook)
    assert 1.5 < outbox.QUEUE.next_lapse_in() <= 2


def test_the_sweeper_runs_every_five_seconds():
    task = PeriodicTask.objects.get(task="webhooks.sweep_deliveries")
    assert (task.interval.every, task.interval.period) == (5, "seconds")
