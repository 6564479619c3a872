"""Per-webhook retry schedules (`retrySchedule`): the seed's by default and exactly, "extended" (about
27.5 h) or the webhook's own delays with +-10 % jitter; validated on write; the attempts follow the
schedule and end as a dead letter after its last step."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote

from jobs.policy import DeliveryPolicy
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery, Webhook
from webhooks.outbox.policy import policy_for
from webhooks.schedules import EXTENDED_DELAYS
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _delays(policy: DeliveryPolicy, attempts: int) -> list[float]:
    return [policy.delay_before(number) for number in range(1, attempts + 1)]


def test_a_new_webhook_shows_the_seed_schedule_by_default(keyed_client, admin_key, session):
    hook = register(keyed_client(admin_key), session, "https://93.184.215.14/hook")
    assert hook["retrySchedule"] == "seed"
    assert hook["retryCount"] == 5


@pytest.mark.parametrize("schedule", ["extended", [5, 60, 3600], [0], [86_400] * 20])
def test_extended_and_lists_of_delays_are_stored_and_shown(keyed_client, admin_key, session, schedule):
    client = keyed_client(admin_key)
    hook = register(client, session, "https://93.184.215.14/hook", retrySchedule=schedule)
    assert hook["retrySchedule"] == schedule
    assert client.get(f"/gateway/webhooks/{hook['id']}").json()["retrySchedule"] == schedule
    assert Webhook.objects.get(pk=hook["id"]).retry_schedule == schedule


@pytest.mark.parametrize(
    ("schedule", "problem"),
    [
        ("weekly", 'must be "seed", "extended" or a list'),
        (5, 'must be "seed", "extended" or a list'),
        ([], "1 to 20 delays"),
        ([1] * 21, "1 to 20 delays"),
        ([86_401], "between 0 and 86,400"),
        ([-1], "between 0 and 86,400"),
        (["5"], "whole number of seconds"),
        ([1.5], "whole number of seconds"),
        ([True], "whole number of seconds"),
    ],
)
def test_a_bad_schedule_is_refused_naming_the_problem(keyed_client, admin_key, session, schedule, problem):
    client = keyed_client(admin_key)
    reply = client.post(
        "/gateway/webhooks",
        {
            "sessionId": str(session.id),
            "url": "https://93.184.215.14/h",
            "events": ["message"],
            "retrySchedule": schedule,
        },
        format="json",
    )
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("retrySchedule: ") and problem in reply.json()["error"]
    assert not Webhook.objects.exists()
    hook = register(client, session, "https://93.184.215.14/hook")
    refused = patch(client, hook["id"], retrySchedule=schedule)
    assert refused.status_code == 400 and refused.json()["error"].startswith("retrySchedule: ")
    assert Webhook.objects.get(pk=hook["id"]).retry_schedule == "seed"


def test_the_seed_schedule_keeps_its_exact_delays_without_jitter(settings):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 1
    for _ in range(20):
        assert _delays(policy_for("registered", "seed"), 6) == [0, 1, 4, 16, 64, 64]
    assert policy_for("registered", None) is policy_for("registered")


def test_extended_waits_its_steps_within_ten_percent(settings):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 1
    policy = policy_for("registered", "extended")
    assert policy.default_attempts == 8
    seen = set()
    for _ in range(50):
        delays = _delays(policy, 8)
        assert delays[0] == 0
        for delay, step in zip(delays[1:], EXTENDED_DELAYS, strict=True):
            assert step * 0.9 <= delay <= step * 1.1
        seen.add(delays[2])
    assert len(seen) > 1  # jittered: retries that failed together do not return together


def test_a_list_schedule_gives_one_attempt_more_than_its_delays_then_a_dead_letter(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver(default=503)
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, retrySchedule=[10, 20, 30], retryCount=2)
    emit(session_id=session.id, name="message", data={"id": "M1"})
    delivery = Delivery.objects.get(webhook_id=hook["id"])
    assert delivery.max_attempts == 4  # the schedule's, not retryCount
    send_due()
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD
    assert [a.outcome for a in delivery.attempts.order_by("number")] == ["retry", "retry", "retry", "dead"]
    assert len(receiver.received) == 4
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1


def test_the_extended_schedule_makes_eight_attempts(keyed_client, admin_key, session, make_receiver):
    receiver = make_receiver(default=500)
    hook = register(keyed_client(admin_key), session, receiver.url, retrySchedule="extended")
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()
    delivery = Delivery.objects.get(webhook_id=hook["id"])
    assert (delivery.status, delivery.attempt_count, delivery.max_attempts) == ("dead", 8, 8)


def test_a_patched_schedule_applies_to_deliveries_still_waiting(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver(statuses=[500])
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, retryCount=1)
    assert patch(client, hook["id"], retrySchedule=[1, 1]).json()["retrySchedule"] == [1, 1]
    emit(session_id=session.id, name="message", data={"id": "M1"})
    assert Delivery.objects.get(webhook_id=hook["id"]).max_attempts == 3
    assert patch(client, hook["id"], retrySchedule="seed").status_code == 200
    assert Delivery.objects.get(webhook_id=hook["id"]).max_attempts == 1  # back to retryCount
    assert patch(client, hook["id"], retrySchedule="extended").status_code == 200
    send_due()
    delivery = Delivery.objects.get(webhook_id=hook["id"])
    assert (delivery.status, delivery.attempt_count, delivery.max_attempts) == ("delivered", 2, 8)


def test_the_schedule_is_edited_in_the_admin_with_the_same_checks(admin_client, session):
    webhook = Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/h", events=["message"]
    )
    path = f"/admin/webhooks/webhook/{quote(webhook.pk)}/change/"
    form = {"url": webhook.url, "events": ["message"], "retry_count": 5, "rate_limit": "", "headers": "null"}
    reply = admin_client.post(path, {**form, "status": "active", "retry_schedule": "[21, 4000]"})
    assert reply.status_code == 302, reply.content.decode()[:2000]
    webhook.refresh_from_db()
    assert webhook.retry_schedule == [21, 4000]
    back = admin_client.post(path, {**form, "status": "active", "retry_schedule": '"seed"'})
    assert back.status_code == 302
    webhook.refresh_from_db()
    assert webhook.retry_schedule == "seed"
    admin_client.post(path, {**form, "status": "active", "retry_schedule": "[21, 4000]"})
    refused = admin_client.post(path, {**form, "status": "active", "retry_schedule": "[90000]"})
    assert refused.status_code == 200 and "between 0 and 86,400" in refused.content.decode()
    webhook.refresh_from_db()
    assert webhook.retry_schedule == [21, 4000]
