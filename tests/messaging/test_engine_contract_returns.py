"""The engine contract returns (issue 40 item 3, docs/decisions/0028): a send is a value, the engine
answers with the message and the events it produced, and the services record both; nothing calls back
into the services during the call, errors carry no write callbacks, and the engine is called in no
transaction (item 4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from messaging.channels.models import ChannelConversation
from messaging.engines.base import OutgoingReaction, OutgoingText, Sent
from messaging.engines.events import MessageEvent
from messaging.engines.sandbox import SandboxEngine
from messaging.models import DailyMessageCount, Message, Session
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.engines import GUARDED
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def test_a_sandbox_send_returns_its_echo_and_reports_nothing_during_the_call(connected_session):
    session = connected_session()
    reported: list = []
    engine = SandboxEngine(on_event=lambda session_id, event: reported.append(event))
    with transaction.atomic():
        sent = engine.send(str(session.pk), OutgoingText(to=CUSTOMER_JID, text="oi"))
    assert isinstance(sent, Sent) and sent.chat == CUSTOMER_JID
    (echo,) = sent.events
    assert (
        isinstance(echo, MessageEvent) and echo.from_me and echo.id == sent.message_id and echo.text == "oi"
    )
    assert reported == [], "the engine called back into the services during the send"
    assert not Message.objects.filter(message_id=sent.message_id).exists(), "the engine wrote the row"


def test_the_send_service_records_the_message_and_hands_the_returned_echo_to_the_sinks_once(
    admin_client, connected_session
):
    session = connected_session()
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "recorded"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 200, response.json()
    message_id = response.json()["messageId"]
    message = Message.objects.get(session=session, message_id=message_id)
    assert (message.type, message.content, message.from_me) == ("text", {"text": "recorded"}, True)
    events = Event.objects.filter(session_id=session.pk, name="message", data__id=message_id)
    assert events.count() == 1 and events.get().data["fromMe"] is True


def test_a_reaction_s_own_message_comes_back_in_the_answer_and_marks_its_target(
    admin_client, connected_session
):
    session = connected_session()
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "react to me"}
    target = admin_client.post("/api/messages/send", body, format="json").json()["messageId"]
    sent = SandboxEngine().send(
        str(session.pk),
        OutgoingReaction(to=CUSTOMER_JID, message_id=target, from_me=True, sender=session.jid, emoji="👍"),
    )
    (echo,) = sent.events
    assert echo.type == "reaction" and echo.reaction.message_id == target and echo.id == sent.message_id
    reacted = {"sessionId": str(session.pk), "to": CUSTOMER, "messageId": target, "reaction": "👍"}
    assert admin_client.post("/api/messages/reaction", reacted, format="json").status_code == 200
    assert Message.objects.get(message_id=target).reactions == {session.jid: "👍"}
    assert Event.objects.filter(session_id=session.pk, name="message", data__type="reaction").count() == 1


def test_a_text_refused_outside_the_window_is_recorded_failed_while_the_send_s_own_writes_roll_back(
    admin_client, graph, official_session
):
    """The failed message is the service's own transaction; the quota the send took is given back (its
    writes rolled back) and no error carries a write for the exception handler to commit."""
    session = official_session("whatsapp_cloud")
    ChannelConversation.objects.create(
        session=session, chat=CUSTOMER_JID, last_customer_at=timezone.now() - timedelta(hours=25)
    )
    counted = sum(DailyMessageCount.objects.filter(account=session.account).values_list("count", flat=True))
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "late"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 409 and response.json()["error"] == "OUTSIDE_CUSTOMER_WINDOW"
    failed = Message.objects.get(message_id=response.json()["messageId"])
    assert (failed.status, failed.content["text"]) == ("failed", "late")
    after = sum(DailyMessageCount.objects.filter(account=session.account).values_list("count", flat=True))
    assert after == counted, "the refused send's quota was kept"
    assert graph.sends() == []


def test_a_failed_send_inside_a_caller_s_transaction_records_its_failure_in_that_unit(
    graph, official_session
):
    """Nested in a caller's transaction (a job), the failure is recorded in the caller's unit of work,
    after the send's savepoint rolled back; the caller's transaction stays usable."""
    from messaging.errors import OutsideCustomerWindow
    from messaging.services.messages import message_send_text

    session = official_session("whatsapp_cloud")
    ChannelConversation.objects.create(
        session=session, chat=CUSTOMER_JID, last_customer_at=timezone.now() - timedelta(hours=25)
    )
    with transaction.atomic():
        with pytest.raises(OutsideCustomerWindow) as raised:
            message_send_text(session=session, to=CUSTOMER_JID, text="nested")
        assert Session.objects.filter(pk=session.pk).exists()  # the caller's transaction is usable
    assert Message.objects.get(message_id=raised.value.unsent_id).status == "failed"


def test_delete_edit_react_and_the_profile_call_the_engine_in_no_transaction(admin_client, connected_session):
    """net.guard fails the test if the engine is asked while the service or the request holds one."""
    session = connected_session()
    Session.objects.filter(pk=session.pk).update(engine=GUARDED)
    sid = str(session.pk)
    sent = admin_client.post(
        "/api/messages/send", {"sessionId": sid, "to": CUSTOMER, "text": "a"}, format="json"
    )
    assert sent.status_code == 200, sent.json()
    message_id = sent.json()["messageId"]
    edit = {"sessionId": sid, "to": CUSTOMER, "messageId": message_id, "text": "b"}
    assert admin_client.post("/api/messages/edit", edit, format="json").status_code == 200
    react = {"sessionId": sid, "to": CUSTOMER, "messageId": message_id, "reaction": "👍"}
    assert admin_client.post("/api/messages/reaction", react, format="json").status_code == 200
    status = admin_client.put(
        "/api/contacts/profile/status", {"sessionId": sid, "status": "on"}, format="json"
    )
    assert status.status_code == 200, status.json()
    name = admin_client.put("/api/contacts/profile/name", {"sessionId": sid, "name": "Loja"}, format="json")
    assert name.status_code == 200, name.json()
    delete = {"sessionId": sid, "remoteJid": CUSTOMER, "messageId": message_id, "fromMe": True}
    deleted = admin_client.post("/api/messages/delete", delete, format="json")
    assert deleted.status_code == 200, deleted.json()
    message = Message.objects.get(message_id=message_id)
    assert (message.status, message.content["text"]) == ("deleted", "b")
    session.refresh_from_db()
    assert (session.profile_status, session.profile_name) == ("on", "Loja")
