"""The mirror on real Celery workers: jobs run there end to end, failures are retried with back-off and
end as dead letters resendable in the admin, a killed worker loses nothing, and a chat keeps its order."""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.test import Client

from integrations.chatwoot import jobs
from integrations.chatwoot.models import MirrorJob
from messaging.models import Message
from tests.integrations.support import inbound, receive
from tests.webhooks.support import wait_for


def _contents(chatwoot) -> list[str]:
    return [m["content"] for m in list(chatwoot.messages.values()) if not m["private"]]


def _job(text: str) -> MirrorJob:
    return MirrorJob.objects.get(kind="message", payload__text=text)


def test_both_directions_run_on_a_worker(start_worker, admin_client, api_client, integration, chatwoot):
    start_worker()
    inbound(admin_client, integration.session, text="Oi pelo worker")
    wait_for(lambda: _contents(chatwoot) == ["Oi pelo worker"], timeout=60, what="the mirrored message")
    (conversation_id,) = chatwoot.conversations
    receive(api_client, integration, chatwoot.agent_message(conversation_id, "Resposta do agente"))
    wait_for(
        lambda: Message.objects.filter(
            session=integration.session, from_me=True, content__text="Resposta do agente"
        ),
        timeout=60,
        what="the agent's message sent through the session",
    )


def test_a_failing_platform_is_retried_then_dead_lettered_and_resent_from_the_admin(
    start_worker, admin_client, integration, chatwoot
):
    start_worker()
    chatwoot.message_failures = [(503, {"error": "maintenance"})] * 2
    inbound(admin_client, integration.session, text="depois de duas falhas")
    wait_for(lambda: _contents(chatwoot) == ["depois de duas falhas"], timeout=60, what="the retried message")
    # The platform has the message before the worker records the job done: wait for the record.
    wait_for(
        lambda: _job("depois de duas falhas").status == MirrorJob.Status.DONE, timeout=60, what="the job done"
    )
    assert _job("depois de duas falhas").attempt_count == 3
    chatwoot.message_failures = [(500, {"error": "boom"})] * 5
    inbound(admin_client, integration.session, text="nunca chega")
    wait_for(lambda: _job("nunca chega").status == MirrorJob.Status.DEAD, timeout=60, what="a dead letter")
    dead = _job("nunca chega")
    assert dead.attempt_count == 5 and "500" in dead.last_error
    # A dead letter lets the chat's later jobs go.
    inbound(admin_client, integration.session, text="a fila segue")
    wait_for(lambda: "a fila segue" in _contents(chatwoot), timeout=60, what="the next message of the chat")
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    page = staff.get("/admin/integrations/mirrorjob/?status__exact=dead")
    assert page.status_code == 200
    response = staff.post(
        "/admin/integrations/mirrorjob/",
        {"action": "resend", "_selected_action": [str(dead.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    wait_for(lambda: _job("nunca chega").status == MirrorJob.Status.DONE, timeout=60, what="the resent job")
    assert _contents(chatwoot)[-1] == "nunca chega"


def test_a_refusal_is_dead_at_once(start_worker, admin_client, integration, chatwoot):
    start_worker()
    chatwoot.message_failures = [(422, {"message": "Content is too long"})]
    inbound(admin_client, integration.session, text="recusada")
    wait_for(lambda: _job("recusada").status == MirrorJob.Status.DEAD, timeout=60, what="a dead letter")
    assert _job("recusada").attempt_count == 1 and "too long" in _job("recusada").last_error


def test_a_killed_worker_loses_nothing_and_the_chat_keeps_its_order(
    start_worker, admin_client, integration, chatwoot, settings
):
    settings.PONTE_CHATWOOT_CLAIM_LEASE_SECONDS = 2
    lease = {"PONTE_CHATWOOT_CLAIM_LEASE_SECONDS": "2"}
    worker = start_worker(env=lease)
    chatwoot.hang_next_message = 30
    inbound(admin_client, integration.session, text="primeira")
    inbound(admin_client, integration.session, text="segunda")
    wait_for(
        lambda: _job("primeira").status == MirrorJob.Status.SENDING, timeout=60, what="the first job held"
    )
    time.sleep(0.5)
    worker.kill()  # SIGKILL: no heartbeat any more, the claim lapses one lease after the last beat
    killed_at = time.monotonic()
    assert _job("segunda").status == MirrorJob.Status.PENDING  # held back behind the first: order
    # No beat and no manual sweep: the new worker's start-up sweep (at once, then at the lapse) is enough.
    start_worker(env=lease)
    wait_for(lambda: _job("segunda").status == MirrorJob.Status.DONE, timeout=60, what="both jobs done")
    recovered_in = time.monotonic() - killed_at
    assert _job("primeira").status == MirrorJob.Status.DONE
    assert _contents(chatwoot)[:2] == ["primeira", "segunda"]
    # The new worker's start-up takes a few seconds on a loaded machine; the lease itself is 2 s.
    assert recovered_in < 30, recovered_in
    print(f"killed worker's jobs done {recovered_in:.1f} s after the kill")


def test_a_job_running_longer_than_its_lease_is_renewed_and_runs_once(
    start_worker, admin_client, integration, chatwoot, settings
):
    settings.PONTE_CHATWOOT_CLAIM_LEASE_SECONDS = 2
    start_worker(env={"PONTE_CHATWOOT_CLAIM_LEASE_SECONDS": "2"})
    chatwoot.hang_next_message = 6  # three leases
    inbound(admin_client, integration.session, text="lenta")
    wait_for(lambda: _job("lenta").status == MirrorJob.Status.SENDING, timeout=60, what="the job held")
    first_claim = _job("lenta").claimed_at
    time.sleep(3.5)  # past the lease: only the heartbeat keeps the claim
    held = _job("lenta")
    assert held.status == MirrorJob.Status.SENDING and held.claimed_at > first_claim
    assert jobs.QUEUE.sweep(grace_seconds=0) == 0  # what beat does: nothing lapsed, nothing hinted
    wait_for(lambda: _job("lenta").status == MirrorJob.Status.DONE, timeout=60, what="the slow job done")
    assert _job("lenta").attempt_count == 1
    assert _contents(chatwoot) == ["lenta"]
