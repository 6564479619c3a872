"""The deliveries' job store (webhooks.outbox.store), through its interface, under each store this
database runs (the ORM's everywhere, PostgreSQL's one-statement store on PostgreSQL): the same answers
from both."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook
from webhooks.outbox.store import Outcome, store
from webhooks.services import emit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("each_store")]

URL = "http://127.0.0.1:9/store"


@pytest.fixture
def hook(session, allow_loopback) -> Webhook:
    return Webhook.objects.create(
        account=session.account, session=session, url=URL, events=["message"], secret="s3cret", rate_limit=5
    )


def _emit(session, n: int = 1) -> list[Delivery]:
    events = [emit(session_id=session.id, name="message", data={"id": f"M{i}"}, chat="c") for i in range(n)]
    return list(Delivery.objects.filter(event__in=events).order_by("pk"))


def test_the_store_is_the_one_the_setting_names(each_store):
    assert type(store()).__name__ == {"orm": "OrmStore", "postgresql": "PostgresStore"}[each_store]


def test_an_event_is_numbered_in_its_chat_and_its_deliveries_get_their_keys(session, hook):
    event = Event(session=session, name="message", data={"a": 1}, chat="x", event_ms=1, received_at_ms=1)
    delivery = Delivery(event=event, session=session, webhook=hook, target_url=URL, payload={"b": [1, 2]})
    store().event_insert(event, [delivery])
    again = Event(session=session, name="message", data={}, chat="x", event_ms=2, received_at_ms=2)
    store().event_insert(again, [])
    assert (event.sequence, again.sequence) == (1, 2)
    assert Delivery.objects.get(pk=delivery.pk).payload == {"b": [1, 2]}
    assert Event.objects.get(pk=event.pk).data == {"a": 1}


def test_numbered_runs_between_the_counter_and_the_rows(session, hook):
    seen = []
    event = Event(session=session, name="message", data={}, chat="y", event_ms=1, received_at_ms=1)
    delivery = Delivery(event=event, session=session, webhook=hook, target_url=URL, payload={})

    def numbered(numbered_event):
        seen.append((numbered_event.sequence, Event.objects.filter(pk=event.pk).exists()))
        delivery.status = Delivery.Status.QUEUED

    store().event_insert(event, [delivery], numbered=numbered)
    assert seen == [(1, False)]
    assert Delivery.objects.get(pk=delivery.pk).status == "queued"


def test_a_sessions_targets_say_its_webhooks_in_order_and_its_account(session, hook):
    second = Webhook.objects.create(
        account=session.account, session=session, url=URL + "/2", events=["qr"], ordering="fifo"
    )
    targets = store().session_targets(session.id)
    assert (targets.instance_webhooks_enabled, targets.account_id) == (False, session.account_id)
    assert [(h[0], h[1], h[2], h[4], h[6]) for h in targets.webhooks] == [
        (hook.pk, URL, ("message",), True, False),
        (second.pk, URL + "/2", ("qr",), True, True),
    ]


def test_a_claim_takes_the_due_oldest_first_with_the_webhooks_settings(session, hook):
    first, second, later = _emit(session, 3)
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + timedelta(hours=1))
    now = timezone.now()
    assert store().due_exists(URL, now=now, lease_cutoff=now - timedelta(minutes=1))
    claimed = store().claim(URL, limit=10, token="t1", now=now, lease_cutoff=now - timedelta(minutes=1))
    assert [c.pk for c in claimed] == [first.pk, second.pk]
    one = claimed[0]
    assert (one.secret, one.rate_limit, one.webhook_id, one.fifo, one.payload["event"]) == (
        "s3cret",
        5,
        hook.pk,
        False,
        "message",
    )
    assert Delivery.objects.filter(claim_token="t1", status="sending").count() == 2
    assert store().claim(URL, limit=10, token="t2", now=now, lease_cutoff=now - timedelta(minutes=1)) == []
    assert not store().due_exists(URL, now=now, lease_cutoff=now - timedelta(minutes=1))


def test_a_claim_whose_lease_ran_out_is_taken_again_and_a_limit_is_kept(session, hook):
    deliveries = _emit(session, 3)
    now = timezone.now()
    store().claim(URL, limit=1, token="dead-worker", now=now, lease_cutoff=now)
    Delivery.objects.filter(claim_token="dead-worker").update(claimed_at=now - timedelta(minutes=5))
    claimed = store().claim(URL, limit=2, token="t", now=now, lease_cutoff=now - timedelta(minutes=1))
    assert [c.pk for c in claimed] == [d.pk for d in deliveries[:2]]  # the stuck one first: due first
    assert store().sweepable("overdue", before=now, limit=10) == [(deliveries[2].pk, URL)]


def test_unclaimed_rows_go_back_and_a_hint_reads_status_and_target(session, hook):
    (delivery,) = _emit(session)
    now = timezone.now()
    store().claim(URL, limit=5, token="t", now=now, lease_cutoff=now)
    assert store().delivery_hint(delivery.pk) == ("sending", URL)
    assert store().sweepable("stuck", before=now + timedelta(seconds=1), limit=5) == [(delivery.pk, URL)]
    store().unclaim([delivery.pk], token="other", status="pending")  # not its claim: nothing
    assert store().delivery_hint(delivery.pk) == ("sending", URL)
    store().unclaim([delivery.pk], token="t", status="pending")
    assert store().delivery_hint(delivery.pk) == ("pending", URL)
    assert store().delivery_hint(10**9) is None


def test_a_record_writes_only_what_its_claim_holds_and_counts_the_webhooks_failures(session, hook):
    first, second = _emit(session, 2)
    now = timezone.now()
    claimed = store().claim(URL, limit=5, token="t", now=now, lease_cutoff=now)
    Delivery.objects.filter(pk=second.pk).update(claim_token="another")
    retry_at = now + timedelta(seconds=30)
    states = [(c.pk, Outcome("failed", 1, 503, "HTTP 503", next_attempt_at=retry_at)) for c in claimed]
    attempts = [
        DeliveryAttempt(
            delivery_id=c.pk, number=1, scheduled_at=c.scheduled_at, status_code=503, outcome="retry"
        )
        for c in claimed
    ]
    held, counts = store().record_batch_counted(
        states, attempts, token="t", now=now, webhooks={c.pk: c.webhook_id for c in claimed}
    )
    assert held == {first.pk}
    row = Delivery.objects.get(pk=first.pk)
    assert (row.status, row.attempt_count, row.next_attempt_at, row.claim_token, row.delivered_at) == (
        "failed",
        1,
        retry_at,
        "",
        None,
    )
    assert list(DeliveryAttempt.objects.values_list("delivery_id", flat=True)) == [first.pk]
    assert counts == [(hook.pk, now, 1)]
