"""The retry schedule at its real speed: after a failure the next attempt waits 1 s, then 4 s."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.webhooks.support import wait_for
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create
from webhooks.services import emit

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_real_schedule_waits_zero_then_one_then_four_seconds(
    start_worker, session, receiver, allow_loopback
):
    receiver.statuses = [500, 503]
    start_worker(env={"PONTE_WEBHOOK_RETRY_DELAY_SCALE": "1"})
    webhook_create(account=session.account, session_id=session.id, url=receiver.url, events=["message"])
    event = emit(session_id=session.id, name="message", data={"id": "M-real"})

    delivery = wait_for(
        lambda: Delivery.objects.filter(event=event, status=Delivery.Status.DELIVERED).first(),
        timeout=90,
        what="the third attempt",
    )
    first, second, third = delivery.attempts.order_by("number")
    assert first.scheduled_at == delivery.event.created_at  # attempt 1 is due at once
    assert second.scheduled_at == first.finished_at + timedelta(seconds=1)
    assert third.scheduled_at == second.finished_at + timedelta(seconds=4)
    assert second.started_at >= second.scheduled_at
    assert third.started_at >= third.scheduled_at
    arrivals = [request.at for request in receiver.received]
    assert arrivals[1] - arrivals[0] >= 1.0
    assert arrivals[2] - arrivals[1] >= 4.0
