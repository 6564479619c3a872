"""A bot's service failing: retried with back-off while it may pass, dead at once when repeating cannot
help, the bot disabled with the reason after too many failures in a row (as webhooks are), addresses
refused by the SSRF rules, and everything run on a real Celery worker, never in the inbound request."""

from __future__ import annotations

import pytest

from integrations.bots.models import Bot, BotJob
from tests.integrations.bots_standin import BotStandIn
from tests.integrations.bots_support import bot_create, drain_bots, sent_texts
from tests.integrations.support import CUSTOMER, inbound
from tests.webhooks.support import wait_for

JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def standin(allow_loopback):
    server = BotStandIn().start()
    yield server
    server.stop()


@pytest.mark.django_db
def test_a_failing_service_is_retried_then_answers(admin_client, paired_session, standin):
    standin.hook_queue = [(503, {"error": "busy"}), (429, {"error": "slow down"})]
    bot = bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    (job,) = BotJob.objects.filter(kind=BotJob.Kind.ANSWER)
    assert job.status == BotJob.Status.FAILED and "503" in job.last_error
    drain_bots(due_now=True)
    drain_bots(due_now=True)
    job.refresh_from_db()
    assert job.status == BotJob.Status.DONE and job.attempt_count == 3
    assert sent_texts(paired_session, JID) == ["Recebido!"]
    assert Bot.objects.get(pk=bot["id"]).consecutive_failures == 0  # an answer starts the count again


@pytest.mark.django_db
def test_a_refusal_or_an_answer_out_of_format_is_dead_at_once(admin_client, paired_session, standin):
    standin.hook_queue = [(401, {"error": "bad token"}), (200, {"replies": [{"photo": "x"}]})]
    bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    inbound(admin_client, paired_session, text="um")
    drain_bots()
    inbound(admin_client, paired_session, text="dois")
    drain_bots()
    first, second = BotJob.objects.filter(kind=BotJob.Kind.ANSWER).order_by("id")
    assert first.status == second.status == BotJob.Status.DEAD
    assert first.attempt_count == second.attempt_count == 1
    assert "HTTP 401" in first.last_error and "replies[0]" in second.last_error
    bot = Bot.objects.get()
    assert bot.last_error == second.last_error and bot.consecutive_failures == 2


@pytest.mark.django_db
def test_a_bot_failing_again_and_again_is_disabled_with_the_reason(
    admin_client, paired_session, standin, settings
):
    settings.PONTE_BOT_DISABLE_AFTER = 3
    standin.hook_answer = (404, {"message": "webhook not registered"})
    bot = bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    for text in ("a", "b", "c", "d"):
        inbound(admin_client, paired_session, text=text)
        drain_bots()
    stored = Bot.objects.get(pk=bot["id"])
    assert stored.enabled is False
    assert "3 failed attempts in a row" in stored.disabled_reason and "404" in stored.disabled_reason
    assert len(standin.calls_to("/hook")) == 3  # the fourth message found the bot off
    reply = admin_client.get(f"/api/bots/{bot['id']}").json()
    assert reply["enabled"] is False and reply["disabledReason"] == stored.disabled_reason
    # Turned on again, it starts afresh.
    body = {**{k: reply[k] for k in ("sessionId", "name", "kind", "settings", "rules")}, "enabled": True}
    turned_on = admin_client.put(f"/api/bots/{bot['id']}", body, format="json").json()
    assert turned_on["enabled"] is True and turned_on["disabledReason"] == ""


@pytest.mark.django_db
def test_a_private_address_is_refused_and_never_retried(admin_client, paired_session, standin, settings):
    bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = []  # loopback no longer allow-listed
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    (job,) = BotJob.objects.all()
    assert job.status == BotJob.Status.DEAD and "not allowed" in job.last_error
    assert standin.calls_to("/hook") == []


def test_bots_answer_on_a_real_worker_and_retries_wait_on_the_schedule(
    start_worker, admin_client, paired_session, standin
):
    start_worker()
    standin.hook_queue = [(500, {"error": "boom"})]
    bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    inbound(admin_client, paired_session, text="pelo worker")
    wait_for(lambda: sent_texts(paired_session, JID) == ["Recebido!"], timeout=60, what="the bot's reply")
    wait_for(
        lambda: BotJob.objects.filter(
            kind=BotJob.Kind.ANSWER, status=BotJob.Status.DONE, attempt_count=2
        ).exists(),
        timeout=60,
        what="the answer done on its second attempt",
    )
