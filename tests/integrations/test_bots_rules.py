"""The conversation rules: triggers (every message, keywords, the first message of a chat), groups
ignored by default, the stop keyword, the inactivity expiry, a person taking over (a message the session
sends by another way pauses the bot in that chat), the debounce window, one bot per chat by priority,
and pausing or resuming a chat through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from integrations.bots.models import BotJob, Conversation
from tests.integrations.bots_standin import BotStandIn
from tests.integrations.bots_support import bot_create, drain_bots, sent_texts
from tests.integrations.support import CUSTOMER, inbound

pytestmark = pytest.mark.django_db
JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def standin(allow_loopback):
    server = BotStandIn().start()
    yield server
    server.stop()


def _hook(standin: BotStandIn) -> dict:
    return {"url": f"{standin.url}/hook"}


def _texts_seen(standin: BotStandIn) -> list[str]:
    return [call.body["bot"]["text"] for call in standin.calls_to("/hook")]


@pytest.mark.parametrize(
    ("operator", "value", "answered", "ignored"),
    [
        ("equals", "menu", "  MENU ", "ver menu"),
        ("contains", "preço", "qual o PREÇO?", "oi"),
        ("regex", r"^pedido \d+$", "pedido 123", "pedido abc"),
    ],
)
def test_a_keyword_trigger_starts_the_bot_only_on_its_keyword(
    admin_client, paired_session, standin, operator, value, answered, ignored
):
    rules = {"trigger": "keyword", "operator": operator, "value": value, "debounceSeconds": 0}
    bot_create(admin_client, paired_session, "http", _hook(standin), rules=rules)
    inbound(admin_client, paired_session, text=ignored)
    drain_bots()
    assert _texts_seen(standin) == []
    inbound(admin_client, paired_session, text=answered)
    drain_bots()
    assert _texts_seen(standin) == [answered]
    # Once started, the bot keeps the conversation: the next message needs no keyword.
    inbound(admin_client, paired_session, text=ignored)
    drain_bots()
    assert _texts_seen(standin) == [answered, ignored]


def test_a_first_message_trigger_starts_only_in_a_new_chat(admin_client, paired_session, standin):
    inbound(admin_client, paired_session, text="uma conversa antiga", **{"from": "5511977776666"})
    bot_create(
        admin_client,
        paired_session,
        "http",
        _hook(standin),
        rules={"trigger": "first_message", "debounceSeconds": 0},
    )
    inbound(admin_client, paired_session, text="de novo", **{"from": "5511977776666"})
    inbound(admin_client, paired_session, text="primeira vez")
    drain_bots()
    assert _texts_seen(standin) == ["primeira vez"]


def test_groups_are_ignored_unless_the_bot_asks_for_them(admin_client, paired_session, standin):
    created = admin_client.post(
        "/api/groups",
        {"sessionId": str(paired_session.pk), "subject": "Loja", "participants": [CUSTOMER]},
        format="json",
    )
    group = created.json()["group"]["id"]
    bot_create(admin_client, paired_session, "http", _hook(standin))
    inbound(admin_client, paired_session, text="no grupo", chat=group)
    drain_bots()
    assert _texts_seen(standin) == []
    bot_create(
        admin_client,
        paired_session,
        "http",
        _hook(standin),
        rules={"ignoreGroups": False, "debounceSeconds": 0},
    )
    inbound(admin_client, paired_session, text="no grupo de novo", chat=group)
    drain_bots()
    assert _texts_seen(standin) == ["no grupo de novo"]


def test_the_stop_keyword_ends_the_conversation_and_a_keyword_bot_then_waits_for_its_keyword(
    admin_client, paired_session, standin
):
    rules = {"trigger": "keyword", "operator": "equals", "value": "bot", "debounceSeconds": 0}
    bot = bot_create(admin_client, paired_session, "http", _hook(standin), rules=rules)
    for text in ("bot", "continuo", "#SAIR", "falo com alguém?"):
        inbound(admin_client, paired_session, text=text)
        drain_bots()
    assert _texts_seen(standin) == ["bot", "continuo"]
    assert Conversation.objects.get(bot_id=bot["id"]).status == Conversation.Status.ENDED


def test_an_idle_conversation_expires(admin_client, paired_session, standin):
    rules = {
        "trigger": "keyword",
        "operator": "equals",
        "value": "bot",
        "expireMinutes": 5,
        "debounceSeconds": 0,
    }
    bot = bot_create(admin_client, paired_session, "http", _hook(standin), rules=rules)
    inbound(admin_client, paired_session, text="bot")
    drain_bots()
    Conversation.objects.filter(bot_id=bot["id"]).update(
        last_activity_at=timezone.now() - timedelta(minutes=6)
    )
    inbound(admin_client, paired_session, text="ainda aí?")
    drain_bots()
    assert _texts_seen(standin) == ["bot"]


def test_a_message_sent_by_a_person_pauses_the_bot_but_its_own_replies_do_not(
    admin_client, paired_session, standin
):
    bot = bot_create(
        admin_client, paired_session, "http", _hook(standin), rules={"pauseMinutes": 30, "debounceSeconds": 0}
    )
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    conversation = Conversation.objects.get(bot_id=bot["id"], chat=JID)
    assert conversation.paused_until is None  # the bot's own reply "Recebido!" came back as an echo
    assert BotJob.objects.filter(kind=BotJob.Kind.OUTGOING, status=BotJob.Status.DONE).count() == 1
    sent = admin_client.post(
        "/api/messages/send",
        {"sessionId": str(paired_session.pk), "to": CUSTOMER, "text": "Aqui é a Ana."},
        format="json",
    )
    assert sent.status_code in (200, 201), sent.json()
    drain_bots()
    conversation.refresh_from_db()
    assert conversation.paused_until > timezone.now() + timedelta(minutes=29)
    inbound(admin_client, paired_session, text="obrigado Ana")
    drain_bots()
    assert _texts_seen(standin) == ["oi"]
    listed = admin_client.get(f"/api/bots/{bot['id']}/conversations").json()
    assert [(row["chatId"], row["status"]) for row in listed] == [(JID, "paused")]
    resumed = admin_client.post(
        f"/api/bots/{bot['id']}/conversations/resume", {"chatId": CUSTOMER}, format="json"
    )
    assert resumed.json()["success"] is True
    inbound(admin_client, paired_session, text="voltei")
    drain_bots()
    assert _texts_seen(standin) == ["oi", "voltei"]
    assert admin_client.get(f"/api/bots/{bot['id']}/conversations").json()[0]["status"] == "active"


def test_pausing_a_chat_through_the_api_keeps_the_bot_quiet_there(admin_client, paired_session, standin):
    bot = bot_create(admin_client, paired_session, "http", _hook(standin))
    paused = admin_client.post(
        f"/api/bots/{bot['id']}/conversations/pause", {"chatId": CUSTOMER, "minutes": 10}, format="json"
    )
    assert paused.status_code == 200, paused.json()
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    assert _texts_seen(standin) == []
    bad = admin_client.post(
        f"/api/bots/{bot['id']}/conversations/pause", {"chatId": CUSTOMER, "minutes": 0}, format="json"
    )
    assert bad.status_code == 400


def test_messages_within_the_debounce_window_are_answered_once_joined(admin_client, paired_session, standin):
    bot_create(admin_client, paired_session, "http", _hook(standin), rules={"debounceSeconds": 30})
    for text in ("oi", "tudo bem?", "queria saber do pedido"):
        inbound(admin_client, paired_session, text=text)
    assert drain_bots() == 0  # the window is still open
    (job,) = BotJob.objects.filter(kind=BotJob.Kind.ANSWER)
    assert len(job.messages) == 3
    drain_bots(due_now=True)
    assert _texts_seen(standin) == ["oi\ntudo bem?\nqueria saber do pedido"]
    assert sent_texts(paired_session, JID) == ["Recebido!"]


def test_one_bot_answers_a_chat_the_first_matching_by_priority(admin_client, paired_session, standin):
    other = BotStandIn().start()
    try:
        bot_create(
            admin_client, paired_session, "http", {"url": f"{other.url}/hook"}, priority=50, name="second"
        )
        bot_create(admin_client, paired_session, "http", _hook(standin), priority=10, name="first")
        inbound(admin_client, paired_session, text="oi")
        drain_bots()
        assert _texts_seen(standin) == ["oi"] and other.calls_to("/hook") == []
        # The chat now belongs to the first bot, even after the second one moves ahead.
        admin_client.get("/api/bots")
        inbound(admin_client, paired_session, text="de novo")
        drain_bots()
        assert _texts_seen(standin) == ["oi", "de novo"] and other.calls_to("/hook") == []
    finally:
        other.stop()
