"""emit() numbers events per (session, chat) with a counter row raised in the event's own statement,
not by reading MAX(sequence): the numbers go on after the events are purged, and on PostgreSQL the
event, its number and its deliveries are one statement."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webhooks import lookups
from webhooks.models import Delivery, Event, EventSequence, Webhook
from webhooks.services import emit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("each_store")]


def _hook(session) -> Webhook:
    return Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/hook", events=["message"]
    )


def test_each_chat_counts_its_own_events_from_one(session):
    numbers = [emit(session_id=session.id, name="message", data={}, chat=chat).sequence for chat in "aaba"]
    assert numbers == [1, 2, 1, 3]
    assert dict(EventSequence.objects.filter(session=session).values_list("chat", "last")) == {"a": 3, "b": 1}
    stored = Event.objects.filter(session=session, chat="a").order_by("sequence")
    assert list(stored.values_list("sequence", flat=True)) == [1, 2, 3]


def test_numbering_goes_on_after_every_event_of_the_chat_is_gone(session):
    emit(session_id=session.id, name="message", data={}, chat="a")
    emit(session_id=session.id, name="message", data={}, chat="a")
    Event.objects.filter(session=session).delete()  # no MAX() left to read
    assert emit(session_id=session.id, name="message", data={}, chat="a").sequence == 3


@pytest.mark.django_db(transaction=True)  # the webhook's write commits: its targets are kept
def test_the_event_number_needs_no_max_scan_and_is_one_statement_with_its_deliveries_on_postgresql(
    session, each_store
):
    """PostgreSQL: one data-modifying WITH. The ORM's store (SQLite) raises the counter and reads it, then
    inserts the event and its deliveries (and, with its per-process cache, reads the session's targets
    each time); neither scans for MAX()."""
    _hook(session)
    emit(session_id=session.id, name="message", data={"id": "warm"}, chat="a")  # the session's targets read
    with CaptureQueriesContext(connection) as queries:
        event = emit(session_id=session.id, name="message", data={"id": "M2"}, chat="a")
    statements = [q["sql"] for q in queries.captured_queries]
    # The ORM's: BEGIN, counter UPDATE and SELECT, event, delivery, COMMIT, and the targets where the
    # cache is the process's own (the embedded default).
    expected = 1 if each_store == "postgresql" else 6 + (not lookups.shared_cache())
    assert len(statements) == expected, statements
    assert not any("MAX(" in statement.upper() for statement in statements)
    assert event.sequence == 2 and Delivery.objects.filter(event=event).count() == 1
