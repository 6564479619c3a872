"""The live socket (`/ws`) streams the chat, contact and label events of issue 41 like every event, and
its `events` filter takes their names and aliases (`chat.pin`, `label.upsert`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.webhooks.live_support import Client, ProcfileWeb, web_env
from tests.webhooks.support import worker_database_url
from webhooks.services import emit

pytestmark = pytest.mark.django_db(transaction=True)

CHAT = "5511988880001@s.whatsapp.net"


@pytest.fixture(scope="module")
def web(django_db_setup, django_db_blocker) -> Iterator[ProcfileWeb]:
    with django_db_blocker.unblock():
        database_url = worker_database_url()
    server = ProcfileWeb(web_env(database_url, settings.REDIS_URL, PONTE_WS_POLL_SECONDS="0.1")).start()
    yield server
    server.stop()


def test_the_socket_streams_chat_and_label_events_filtered_by_name_or_alias(web, session, viewer_key):
    client = Client(
        web.ws_url(sessionId=str(session.id), events="chat.pin,label.upsert,contact_block"), key=viewer_key
    )
    client.ready()
    try:
        emit(session_id=session.id, name="chat_mute", data={"chat": CHAT, "mutedUntil": None}, chat=CHAT)
        emit(session_id=session.id, name="chat_pin", data={"chat": CHAT, "pinned": True}, chat=CHAT)
        emit(session_id=session.id, name="label_edit", data={"labelId": "1", "name": "VIP", "color": 3})
        emit(session_id=session.id, name="contact_block", data={"jid": CHAT, "blocked": True}, chat=CHAT)
        frames = client.events(3)
    finally:
        client.close()
    assert [f["event"] for f in frames] == ["chat_pin", "label_edit", "contact_block"]
    assert frames[1]["data"] == {"labelId": "1", "name": "VIP", "color": 3, "deleted": False}
