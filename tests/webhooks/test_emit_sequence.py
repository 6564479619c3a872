"""emit() numbers events per (session, chat) with a counter row raised in the event's own statement,
not by reading MAX(sequence): the numbers go on after the events are purged, and on PostgreSQL the
event, its number and its deliveries are one statement."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webhooks.models import Delivery, Event, EventSequence, Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db


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
def test_the_event_with_its_number_and_its_deliveries_is_one_statement_on_postgresql(session):
    if connection.vendor != "postgresql":
        pytest.skip("one statement is PostgreSQL's (a data-modifying WITH); SQLite runs them in turn")
    _hook(session)
    emit(session_id=session.id, name="message", data={"id": "warm"}, chat="a")  # the session's targets read
    with CaptureQueriesContext(connection) as queries:
        event = emit(session_id=session.id, name="message", data={"id": "M2"}, chat="a")
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) == 1, statements
    assert "MAX(" not in statements[0].upper()
    assert event.sequence == 2 and Delivery.objects.filter(event=event).count() == 1
