"""Sends to one chat are not serialised behind the engine (issue 39, item 9).

An API send holds no row lock across the engine's round trip: the quota is committed before the engine
is asked, and the message, its echo's event (whose number comes from the chat's counter row) and the
chat's row are one short transaction once it has answered (messaging.services.messages.message_send).
So many sends to one chat overlap their round trips as sends to many chats do, and wait on each other
only for that short transaction.

The engine is the sandbox behind a network round trip of 0.2 s (tests/messaging/engines.py), and the
sends go through the whole HTTP stack (Django's test client, middleware, the view) from 20 threads. On
PostgreSQL the locks are row locks: before this change every send of the account waited on the quota's
row, and every event of the chat on its counter row, across the round trip. On SQLite (transactions
take the database's one write lock: transaction_mode IMMEDIATE) the same test means the same thing: a
request-wide transaction held that lock across the round trip, so every send of every account waited.

Bounds are generous (a busy 2-core machine): one chat within 3 x many chats, and well under the time the
round trips alone take one after another.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from messaging.models import Message, Session
from messaging.services.quota import messages_sent_today
from tests.messaging.engines import LATENT, LatentSandboxEngine
from webhooks.models import Event

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,  # threads racing for seconds
]

SENDS = 200
THREADS = 20
ONE_CHAT = "5511988880002"


def _send_all(key: str, session_id: str, recipients: list[str]) -> tuple[float, list[int]]:
    """Send one text to each recipient from THREADS threads at once; (seconds, statuses)."""
    statuses: list[int] = []
    start = threading.Barrier(THREADS + 1)

    def work(share: list[str]) -> None:
        client = APIClient()
        client.credentials(HTTP_X_API_KEY=key)
        start.wait()
        try:
            for to in share:
                body = {"sessionId": session_id, "to": to, "text": f"to {to}"}
                statuses.append(client.post("/api/messages/send", body, format="json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(recipients[n::THREADS],)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join(timeout=600)
    return time.monotonic() - began, statuses


def test_200_sends_to_one_chat_take_at_most_3_times_200_sends_to_200_chats(admin_key, connected_session):
    session = connected_session()
    Session.objects.filter(pk=session.pk).update(engine=LATENT)
    session_id = str(session.pk)

    spread, spread_statuses = _send_all(admin_key, session_id, [f"55119{n:08d}" for n in range(1, SENDS + 1)])
    one_chat, one_chat_statuses = _send_all(admin_key, session_id, [ONE_CHAT] * SENDS)
    serial = SENDS * LatentSandboxEngine.round_trip
    print(f"{SENDS} sends: 200 chats {spread:.2f} s, one chat {one_chat:.2f} s, in a row {serial:.0f} s")

    assert spread_statuses == [200] * SENDS and one_chat_statuses == [200] * SENDS
    assert one_chat <= 3 * spread
    assert one_chat < serial / 2, "the sends to one chat waited on each other's round trips"

    # Nothing lost or doubled, and the chat's numbers are gap-free: 1..200, one per sent message.
    chat = f"{ONE_CHAT}@s.whatsapp.net"
    sent = Message.objects.filter(session=session, chat=chat, from_me=True)
    assert sent.count() == SENDS
    echoes = Event.objects.filter(session=session, chat=chat, name="message")
    assert sorted(echoes.values_list("sequence", flat=True)) == list(range(1, SENDS + 1))
    assert set(echoes.values_list("data__id", flat=True)) == set(sent.values_list("message_id", flat=True))
    assert messages_sent_today(session.account) == 2 * SENDS
