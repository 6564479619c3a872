"""The live event socket `/ws` (docs/events.md) on a real web process started by the Procfile's web line.

The server uses this test's database and Redis (none on the embedded default), so the events this test
process emits reach it the way a worker's or an engine's would: through Redis pub/sub, or through the
outbox poll of the embedded default.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import pytest
import websocket
from django.conf import settings
from django.db import connection, transaction
from rest_framework.test import APIClient

from accounts.keys import prefix_of
from accounts.models import ApiKey
from accounts.services import api_key_revoke
from messaging.models import Session
from tests.messaging.pairing import pair_sandbox_session
from tests.webhooks.live_support import Client, Closed, ProcfileWeb, refused, web_env
from tests.webhooks.support import worker_database_url
from webhooks.models import Delivery, Event, Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db(transaction=True)

QUEUE_FRAMES = 20
POLL_SECONDS = 0.1


@pytest.fixture(scope="module")
def web(django_db_setup, django_db_blocker) -> Iterator[ProcfileWeb]:
    with django_db_blocker.unblock():
        database_url = worker_database_url()
    server = ProcfileWeb(
        web_env(
            database_url,
            settings.REDIS_URL,
            PONTE_WS_QUEUE_FRAMES=str(QUEUE_FRAMES),
            PONTE_WS_POLL_SECONDS=str(POLL_SECONDS),
            PONTE_WS_KEY_CHECK_SECONDS="1",
            # Server pings every half second; a client not reading for a while is not timed out.
            PONTE_WS_PING_SECONDS="0.5",
            PONTE_WS_PING_TIMEOUT_SECONDS="60",
        )
    ).start()
    yield server
    server.stop()


def _message(session: Session, text: str, **kwargs) -> Event:
    return emit(
        session_id=session.id,
        name="message",
        data={"id": f"M-{text[:20]}", "text": text, "sender": "5511988880001@s.whatsapp.net"},
        chat="5511988880001@s.whatsapp.net",
        **kwargs,
    )


def _connect(web: ProcfileWeb, key: str, session: Session | str, **query: str) -> Client:
    session_id = session if isinstance(session, str) else str(session.id)
    client = Client(web.ws_url(sessionId=session_id, **query), key=key)
    client.ready()
    return client


def test_a_key_in_the_x_api_key_header_or_the_apikey_query_opens_the_stream_of_the_session(
    web, session, viewer_key
):
    by_header = Client(web.ws_url(sessionId=str(session.id)), key=viewer_key)
    by_query = Client(web.ws_url(sessionId=str(session.id), apiKey=viewer_key))
    try:
        ready = by_header.ready()
        assert ready == {"type": "ready", "sessions": [str(session.id)], "events": "*", "replayed": 0}
        by_query.ready()
        event = _message(session, "hello")
        for client in (by_header, by_query):
            [frame] = client.events(1)
            assert frame["id"] == str(event.id)
            assert frame["event"] == "message"
            assert frame["data"]["text"] == "hello"
    finally:
        by_header.close()
        by_query.close()
    # uvicorn logs each upgrade with its query string: the key given there is masked.
    assert "apiKey=***" in web.output()
    assert viewer_key not in web.output()


def test_an_event_whose_transaction_rolls_back_is_never_streamed(web, session, viewer_key):
    client = _connect(web, viewer_key, session)
    try:
        with contextlib.suppress(RuntimeError), transaction.atomic():
            _message(session, "rolled back")
            raise RuntimeError("the caller failed")
        kept = _message(session, "committed")
        [frame] = client.events(1)
        assert frame["id"] == str(kept.id)
    finally:
        client.close()


def test_a_missing_or_unknown_key_is_refused_with_4401_and_a_reason(web, session):
    error, closed = refused(web.ws_url(sessionId=str(session.id)))
    assert closed.code == 4401
    assert "X-API-Key" in error["error"] and "apiKey" in closed.reason
    _, closed = refused(web.ws_url(sessionId=str(session.id), apiKey="pk_live_nope_0000000000000000"))
    assert closed.code == 4401


def test_a_key_sees_only_the_sessions_the_rest_api_lets_it_use(web, account, make_account, make_key, session):
    other = Session.objects.create(account=account, name="other", status=Session.Status.CONNECTED)
    foreign = Session.objects.create(account=make_account(name="stranger"), name="theirs")
    restricted = make_key(ApiKey.Role.VIEWER, allowed_sessions=[str(session.id)])

    error, closed = refused(web.ws_url(sessionId=str(other.id)), key=restricted)
    assert closed.code == 4403 and "not allowed" in error["error"]
    _, closed = refused(web.ws_url(sessionId=str(foreign.id)), key=restricted)
    assert closed.code == 4404
    _, closed = refused(web.ws_url(sessionId="not-a-session"), key=restricted)
    assert closed.code == 4404
    _, closed = refused(web.ws_url(), key=restricted)
    assert closed.code == 4400

    # `*` is every session the key may use: a restricted key's own, an open key's all (later ones too).
    only_allowed = _connect(web, restricted, "*")
    everything = _connect(web, make_key(ApiKey.Role.VIEWER), "*")
    try:
        later = Session.objects.create(account=account, name="later", status=Session.Status.CONNECTED)
        _message(foreign, "not yours")
        _message(other, "other")
        _message(later, "later")
        _message(session, "main")
        assert [f["data"]["text"] for f in only_allowed.events(1)] == ["main"]
        assert [f["data"]["text"] for f in everything.events(3)] == ["other", "later", "main"]
    finally:
        only_allowed.close()
        everything.close()


def test_the_events_filter_passes_only_the_named_events_and_refuses_unknown_names(web, session, viewer_key):
    error, closed = refused(web.ws_url(sessionId=str(session.id), events="message,typing"), key=viewer_key)
    assert closed.code == 4400
    assert "'typing'" in error["error"] and "message_ack" in error["error"]

    client = _connect(web, viewer_key, session, events="qr,messages")  # an alias counts as its event
    try:
        emit(session_id=session.id, name="presence", data={"jid": "x", "presence": "available"})
        emit(session_id=session.id, name="qr", data={"qrCode": "2@abc"})
        _message(session, "kept")
        frames = client.events(2)
        assert [f["event"] for f in frames] == ["qr", "message"]
    finally:
        client.close()


def test_each_frame_is_exactly_the_registered_webhook_body_plus_the_event_id_and_seq(
    web, session, viewer_key
):
    Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/hook", events=["message"]
    )
    client = _connect(web, viewer_key, session)
    try:
        first = _message(session, "one", event_ms=1_700_000_000_123)
        second = _message(session, "two")
        frames = client.events(2)
    finally:
        client.close()
    for frame, event in zip(frames, (first, second), strict=True):
        body = Delivery.objects.get(event=event).payload  # what the worker signs and POSTs
        assert {k: v for k, v in frame.items() if k not in ("id", "seq")} == body
        assert frame["id"] == str(event.id)
        assert frame["seq"] == event.sequence
    assert frames[0]["timestamp"] == "2023-11-14T22:13:20.123Z"
    assert frames[1]["seq"] == frames[0]["seq"] + 1


def test_the_server_pings_and_answers_the_clients_pings(web, session, viewer_key):
    client = _connect(web, viewer_key, session)
    try:
        client.send({"type": "ping", "id": 7})
        assert client.frame() == {"type": "pong", "id": 7}
        client.ws.ping(b"are you there")
        client.send({"type": "ping"})
        assert client.frame() == {"type": "pong"}
        assert client.pongs == [b"are you there"]
        # Protocol pings every half second (PONTE_WS_PING_SECONDS), answered by websocket-client.
        pings = 0
        deadline = time.monotonic() + 10
        while pings < 2 and time.monotonic() < deadline:
            opcode, _ = client.ws.recv_data_frame(control_frame=True)
            pings += opcode == websocket.ABNF.OPCODE_PING
        assert pings == 2
    finally:
        client.close()


def test_a_client_that_stops_reading_is_closed_with_4008_and_resumes_with_since_without_gaps(
    web, session, viewer_key
):
    # A small receive window, so the server's send blocks soon and frames pile up in its queue.
    client = Client(web.ws_url(sessionId=str(session.id)), key=viewer_key, rcvbuf=4096)
    client.ready()
    padding = "x" * 64_000
    # Bursts, each reaching the server after the previous one (POLL_SECONDS apart, or Redis messages):
    # a client is judged too slow when frames are still waiting as more come, not by one burst's size.
    emitted = []
    for burst in range(6):
        emitted += [str(_message(session, f"{burst}{n:02d} {padding}").id) for n in range(20)]
        time.sleep(3 * POLL_SECONDS)

    received: list[str] = []
    while True:
        frame = client.frame()
        if isinstance(frame, Closed):
            break
        received.append(frame["id"])
        # All of them sent: the server never judged the client too slow (and would keep it open).
        assert len(received) < len(emitted), "every event was sent to a client that did not read"
    client.close()
    assert frame.code == 4008, frame
    assert "too slow" in frame.reason
    assert 0 < len(received) < len(emitted)
    assert received == emitted[: len(received)]  # in order, nothing skipped before the cut

    resumed = Client(web.ws_url(sessionId=str(session.id), since=received[-1]), key=viewer_key)
    try:
        rest = []
        while True:
            frame = resumed.frame()
            assert isinstance(frame, dict), frame
            if frame.get("type") == "ready":
                break
            rest.append(frame["id"])
        assert frame["replayed"] == len(rest)
    finally:
        resumed.close()
    assert received + rest == emitted


def test_since_replays_the_outbox_then_continues_live_without_gaps_or_duplicates(web, session, viewer_key):
    before = [_message(session, f"before {n}") for n in range(5)]
    # Events keep coming while the client connects and replays.
    during: list[Event] = []
    started = threading.Event()

    def keep_emitting() -> None:
        started.set()
        try:
            for n in range(40):
                during.append(_message(session, f"during {n}"))
        finally:
            connection.close()  # this thread's own connection

    emitter = threading.Thread(target=keep_emitting)
    emitter.start()
    started.wait()
    client = Client(web.ws_url(sessionId=str(session.id), since=str(before[1].id)), key=viewer_key)
    # The client reads while the events keep coming, as a client does: one that stopped reading would
    # be closed as too slow once more than the queue's frames wait (a test of its own, below).
    frames: list = []

    def read_until_after() -> None:  # the "after" event and the replay's end ("ready"), in any order
        seen_after = seen_ready = False
        while not (seen_after and seen_ready):
            frame = client.frame()
            frames.append(frame)
            if not isinstance(frame, dict):
                return
            seen_after = seen_after or frame.get("data", {}).get("text") == "after"
            seen_ready = seen_ready or frame.get("type") == "ready"

    reader = threading.Thread(target=read_until_after)
    reader.start()
    try:
        emitter.join()
        after = _message(session, "after")
        reader.join(timeout=60)
        expected = [str(e.id) for e in [*before[2:], *during, after]]
        assert all(isinstance(frame, dict) for frame in frames), frames[-1]
        ids = [frame["id"] for frame in frames if "event" in frame]
        ready = next(frame for frame in frames if frame.get("type") == "ready")
        assert ids == expected
        assert ready["replayed"] >= 3
        last = _message(session, "live")
        got = client.events(1)
        assert [frame["id"] for frame in got] == [str(last.id)], (got[0]["data"]["text"], got[0]["id"] in ids)
        client.send({"type": "ping"})
        assert client.frame() == {"type": "pong"}  # and nothing more (no duplicate) before it
    finally:
        client.close()


def test_since_naming_an_event_not_in_the_outbox_is_refused_with_4410(web, session, viewer_key, make_account):
    foreign = Session.objects.create(account=make_account(name="stranger"), name="theirs")
    theirs = _message(foreign, "not yours")
    for since in ("00000000-0000-0000-0000-000000000000", str(theirs.id)):
        _, closed = refused(web.ws_url(sessionId=str(session.id), since=since), key=viewer_key)
        assert closed.code == 4410
    _, closed = refused(web.ws_url(sessionId=str(session.id), since="yesterday"), key=viewer_key)
    assert closed.code == 4400


def test_a_key_revoked_while_connected_closes_the_socket_with_4401(web, session, make_key):
    plaintext = make_key(ApiKey.Role.VIEWER)
    client = _connect(web, plaintext, session)
    try:
        api_key_revoke(key=ApiKey.objects.get(prefix=prefix_of(plaintext)))
        client.ws.settimeout(40)
        frame = client.frame()
        while not isinstance(frame, Closed):
            frame = client.frame()
        assert frame.code == 4401
    finally:
        client.close()


def test_votes_edits_calls_and_group_changes_reach_the_socket_as_their_webhook_bodies(
    web, viewer_key, make_key
):
    """The events of polls, edits, calls and group administration, made by the sandbox through the REST
    API, stream like every other: the registered webhook's body, filtered by their names or aliases."""
    api = APIClient()
    api.credentials(HTTP_X_API_KEY=make_key("admin"))
    session = pair_sandbox_session(api, "sandbox")
    names = ["poll_vote", "message_edited", "call", "group_update"]
    Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/hook", events=names
    )
    customer, group = "5511988880001", "120363000000000001@g.us"
    inbound = f"/api/sandbox/sessions/{session.pk}/inbound"
    client = _connect(web, viewer_key, session, events="poll.vote,message.edited,call,group_update")
    try:
        body = {"sessionId": str(session.pk), "to": customer, "name": "Lunch?", "options": ["Yes", "No"]}
        sent = api.post("/api/messages/poll", body, format="json")
        assert sent.status_code == 200, sent.json()
        poll_id = sent.json()["messageId"]
        steps = [
            {"event": "message", "from": customer, "text": "teh", "messageId": "3EB0THEIRS"},
            {"event": "poll_vote", "from": customer, "pollMessageId": poll_id, "options": ["Yes"]},
            {"event": "message_edited", "from": customer, "messageId": "3EB0THEIRS", "text": "the"},
            {"event": "call", "from": customer, "callId": "CALL1", "video": True},
            {"event": "group_join", "group": group, "participants": ["5511999990001"], "subject": "Lunch"},
            {"event": "group_update", "group": group, "subject": "Lunch club", "by": customer},
        ]
        for step in steps:
            reply = api.post(inbound, step, format="json")
            assert reply.status_code < 300, reply.json()
        frames = client.events(4)
    finally:
        client.close()
    assert [frame["event"] for frame in frames] == names
    for frame in frames:
        body = Delivery.objects.get(event_id=frame["id"], kind=Delivery.Kind.REGISTERED).payload
        assert {k: v for k, v in frame.items() if k not in ("id", "seq")} == body
    vote, edited, call, update = (frame["data"] for frame in frames)
    assert vote["selectedOptions"] == ["Yes"] and edited["text"] == "the"
    assert call["callId"] == "CALL1" and update["subject"] == "Lunch club"


def test_lists_list_responses_forwards_and_previews_stream_as_message_frames(web, viewer_key, make_key):
    """A list sent, the customer's choice (`list_response`), a forward and a previewed text stream as
    `message` frames carrying their fields."""
    api = APIClient()
    api.credentials(HTTP_X_API_KEY=make_key("admin"))
    session = pair_sandbox_session(api, "sandbox")
    customer = "5511988880001"
    base = {"sessionId": str(session.pk), "to": customer}
    client = _connect(web, viewer_key, session, events="message")
    try:
        rows = [{"rowId": "r1", "title": "One"}]
        listed = {**base, "text": "Pick", "buttonText": "Open", "sections": [{"title": "S", "rows": rows}]}
        assert api.post("/api/messages/list", listed, format="json").status_code == 200
        choice = {"event": "message", "type": "list_response", "from": customer}
        choice["listResponse"] = {"rowId": "r1", "title": "One"}
        assert (
            api.post(f"/api/sandbox/sessions/{session.pk}/inbound", choice, format="json").status_code == 201
        )
        card = {"url": "https://a.example", "title": "A"}
        text = api.post(
            "/api/messages/send", {**base, "text": "https://a.example", "linkPreview": card}, format="json"
        )
        forward = {**base, "chat": customer, "messageId": text.json()["messageId"]}
        assert api.post("/api/messages/forward", forward, format="json").status_code == 200
        frames = client.events(4)
    finally:
        client.close()
    listed_data, choice_data, text_data, copy_data = (frame["data"] for frame in frames)
    assert listed_data["type"] == "list" and listed_data["list"]["sections"][0]["rows"][0]["rowId"] == "r1"
    assert choice_data["type"] == "list_response" and choice_data["listResponse"]["rowId"] == "r1"
    assert text_data["linkPreview"]["title"] == "A" and copy_data["forwarded"] is True
