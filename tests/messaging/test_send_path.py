"""The send path and the inbound path, statement by statement (issue 29: a send reads its session once,
takes the quota in one statement, writes its message once and emits its event in the same transaction,
without savepoints of its own).

Counted on the sandbox engine with one registered webhook and no Chatwoot integration. What messaging
runs is pinned exactly; what the event sinks run (the outbox, the mirror) is counted apart
(tests/messaging/counted_sinks.py) and only bounded, because that half is built separately: the budget
is 9 statements per send and 6 per inbound event in all, of which messaging's share is 7 and 4 (the
send's own transaction, or the request's, counted as a savepoint inside the test's); the one added to
each by issue 32 keeps the chat list (`GET /api/chats`) in step: one upsert of the chat's row.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.messaging import counted_sinks
from tests.messaging.contract import CUSTOMER
from webhooks.models import Event, Webhook

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(connected_session, settings):
    session = connected_session()
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/hook", events=["message"]
    )
    settings.MESSAGING_EVENT_SINK = counted_sinks.counting(settings.MESSAGING_EVENT_SINK)
    return session


def _counted(call):
    call()  # warm: the key resolved and touched, the engine loaded
    counted_sinks.spans.clear()
    with CaptureQueriesContext(connection) as captured:
        call()
    return counted_sinks.split(captured)


def test_a_send_reads_its_session_once_takes_the_quota_once_and_writes_its_message_once(
    admin_client, session
):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "counted"}
    ours, sinks = _counted(lambda: admin_client.post("/api/messages/send", body, format="json"))
    assert ours == [
        "SELECT",  # the session, for the key (its account and plan come with it); no request transaction
        "SAVEPOINT",  # the send's own transaction (BEGIN in production; a savepoint inside the test's)
        "INSERT",  # the day's quota: one upsert, conditional on the plan's limit
        "UPDATE",  # the sandbox device: locked, its message counter moved on (RETURNING)
        "INSERT",  # the message row, once (the engine's echo is emitted with it, not written first)
        "INSERT",  # the chat's row (ON CONFLICT DO UPDATE): its last message time
        "RELEASE",
    ]
    assert len(counted_sinks.spans) == 1, "one event: the echo of the sent message"
    assert Event.objects.filter(name="message", data__text="counted", data__fromMe=True).count() == 2
    print(f"send: {len(ours)} + sinks {len(sinks)} {sinks} (budget 9 in all)")


@pytest.mark.django_db(transaction=True)
def test_a_send_on_its_own_is_one_transaction_of_the_same_statements_on_the_sandbox(admin_client, session):
    """As in production (no test transaction around it, no request transaction either): the sandbox's
    work is database work, so the send is one transaction of its own with the same statements. (An
    engine reached over a network is called between two: tests/messaging/test_send_concurrency.py.)"""
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "counted"}
    ours, sinks = _counted(lambda: admin_client.post("/api/messages/send", body, format="json"))
    assert ours == ["SELECT", "BEGIN", "INSERT", "UPDATE", "INSERT", "INSERT", "COMMIT"]
    assert len(counted_sinks.spans) == 1, "one event: the echo of the sent message"
    # SQLite (the ORM's job store, webhooks.outbox.store_orm): the chat's counter is raised and read
    # back (an UPDATE and a SELECT) where PostgreSQL's one statement does it all.
    # The embedded default has no shared cache, so its processes keep no lookups (webhooks.lookups): each
    # sink asks the database once per event (the outbox, the Chatwoot mirror, the bots).
    assert len(ours) + len(sinks) <= (8 if connection.vendor == "postgresql" else 14), (ours, sinks)
    print(f"send on its own: {len(ours)} + sinks {len(sinks)} {sinks} (budget 9 in all)")


def test_an_inbound_event_reads_the_session_once_and_writes_one_row(admin_client, session):
    path = f"/api/sandbox/sessions/{session.pk}/inbound"
    body = {"event": "message", "from": CUSTOMER, "text": "counted"}
    ours, sinks = _counted(lambda: admin_client.post(path, body, format="json"))
    assert ours == [
        "SAVEPOINT",  # the request's transaction
        "SELECT",  # the session, for the key; the event's record uses it (no second, locked read)
        "UPDATE",  # the sandbox device: locked, the new message id (RETURNING)
        "INSERT",  # the message row (ON CONFLICT DO NOTHING)
        "INSERT",  # the chat's row (ON CONFLICT DO UPDATE): unread count (the settings read inside), time
        "RELEASE",
    ]
    event_share = 2 + len(sinks)  # the message and chat rows, then the sinks'
    print(f"inbound event: {event_share} ({sinks} from the sinks; budget 6)")


def test_an_event_reported_from_elsewhere_reads_its_session_locked_once(session, settings):
    """Official channels' webhooks and engine processes report without the caller's session at hand."""
    from messaging.engines.events import event_from_data
    from messaging.services.events import engine_event_receive

    data = {
        "id": "3EB0ELSEWHERE",
        "chat": f"{CUSTOMER}@s.whatsapp.net",
        "sender": f"{CUSTOMER}@s.whatsapp.net",
    }
    event = event_from_data(
        "message", {**data, "type": "text", "text": "hi", "timestamp": 1, "fromMe": False}
    )
    counted_sinks.spans.clear()
    with CaptureQueriesContext(connection) as captured:
        engine_event_receive(str(session.pk), event)
    ours, _ = counted_sinks.split(captured)
    assert ours == ["SELECT", "INSERT", "INSERT"]  # the session FOR UPDATE, the message row, the chat row


def test_an_ack_is_one_update_and_only_ever_moves_a_status_forward(admin_client, session):
    from messaging.engines.events import MessageAckEvent
    from messaging.models import Message
    from messaging.services.events import engine_event_receive

    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "acked"}
    sent = admin_client.post("/api/messages/send", body, format="json").json()
    chat = f"{CUSTOMER}@s.whatsapp.net"

    def ack(status: str) -> list[str]:
        event = MessageAckEvent(message_id=sent["messageId"], chat_jid=chat, status=status, recipient=chat)
        counted_sinks.spans.clear()
        with CaptureQueriesContext(connection) as captured:
            engine_event_receive(str(session.pk), event)
        return counted_sinks.split(captured)[0]

    assert ack("read") == ["SELECT", "UPDATE"]  # the session FOR UPDATE, the message's status
    ack("delivered")
    assert Message.objects.get(message_id=sent["messageId"]).status == "read"


def test_a_send_refused_inside_a_callers_transaction_leaves_it_usable_and_uncounted(session):
    """Outside a request (the Chatwoot mirror, a task) a send keeps its savepoint: the caller catches the
    error and writes on, and the send's own writes (the quota) are gone."""
    from django.db import transaction

    from messaging.errors import MessageNotFound
    from messaging.services.messages import QuotedInput, message_send_text
    from messaging.services.quota import messages_sent_today

    before = messages_sent_today(session.account)
    with transaction.atomic():
        with pytest.raises(MessageNotFound):
            message_send_text(session=session, to=CUSTOMER, text="x", quoted=QuotedInput(message_id="NOPE"))
        assert messages_sent_today(session.account) == before  # the caller's transaction still answers
