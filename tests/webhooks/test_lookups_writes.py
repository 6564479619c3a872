"""What emit() keeps of a session (webhooks.lookups) is dropped by every write of the rows it was read
from, whatever API made the write (core.writes): a queryset's update(), bulk_update() and delete(), the
admin's form, as well as save(). Run on the environment's cache (Redis when REDIS_URL is set, shared by
every process; the embedded default's per-process cache otherwise) and on a shared file cache."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webhooks import lookups
from webhooks.models import Delivery, InstanceWebhookConfig, Webhook
from webhooks.services import emit

# Real commits: a write inside an open transaction is seen only by its own connection, which then
# reads the database itself, so the test would pass without any drop.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["environment", "shared-file"])
def kept(request, settings, tmp_path) -> bool:
    """Whether this cache lets the targets be kept (a shared one); the version is checked only once a
    minute, so only the writing process's own drop can make the next event see a write."""
    if request.param == "shared-file":
        backend = "django.core.cache.backends.filebased.FileBasedCache"
        settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": tmp_path}}
    settings.PONTE_LOOKUP_CHECK_SECONDS = 60
    return lookups.shared_cache()


@pytest.fixture
def hook(session, allow_loopback) -> Webhook:
    return Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/old", events=["message"]
    )


def _targets_read(session) -> tuple[list[str], int]:
    """Emit an event: the URLs its deliveries go to, and how many times the session's targets were read."""
    with CaptureQueriesContext(connection) as queries:
        event = emit(session_id=session.id, name="message", data={"text": "hi"}, chat="c")
    reads = sum("webhooks_instancewebhookconfig" in q["sql"] for q in queries.captured_queries)
    return list(Delivery.objects.filter(event=event).values_list("target_url", flat=True)), reads


def _warm(session, kept: bool) -> None:
    _targets_read(session)
    assert _targets_read(session) == (["http://127.0.0.1:9/old"], 0 if kept else 1)


def test_a_queryset_update_of_a_webhook_is_used_by_the_next_event(session, hook, kept):
    _warm(session, kept)
    Webhook.objects.filter(pk=hook.pk).update(url="http://127.0.0.1:9/new")
    assert _targets_read(session) == (["http://127.0.0.1:9/new"], 1)
    session.webhooks.update(events=["qr"])  # through the related manager too
    assert _targets_read(session)[0] == []


def test_a_bulk_update_and_a_queryset_delete_are_used_by_the_next_event(session, hook, kept):
    _warm(session, kept)
    hook.url = "http://127.0.0.1:9/bulk"
    Webhook.objects.bulk_update([hook], ["url"])
    assert _targets_read(session)[0] == ["http://127.0.0.1:9/bulk"]
    Webhook.objects.filter(pk=hook.pk).delete()
    assert _targets_read(session)[0] == []


def test_an_admin_edit_of_a_webhook_is_used_by_the_next_event(admin_client, session, hook, kept):
    _warm(session, kept)
    data = {"url": "http://127.0.0.1:9/admin", "events": ["message"], "retry_count": 3, "status": "active"}
    reply = admin_client.post(f"/admin/webhooks/webhook/{quote(hook.pk)}/change/", data)
    assert reply.status_code == 302, reply.content[:500]
    assert _targets_read(session)[0] == ["http://127.0.0.1:9/admin"]


def test_an_instance_webhook_switched_on_by_update_is_used_by_the_next_event(session, hook, kept):
    config = InstanceWebhookConfig.objects.create(session=session, webhook_message="http://127.0.0.1:9/i")
    _warm(session, kept)
    InstanceWebhookConfig.objects.filter(pk=config.pk).update(allow_webhook=True)
    urls, _reads = _targets_read(session)
    assert sorted(urls) == ["http://127.0.0.1:9/i", "http://127.0.0.1:9/old"]


def test_a_write_of_a_webhooks_failure_count_keeps_the_targets(session, hook, kept):
    """Each batch's record writes the failure count; what emit() reads is not in it."""
    _warm(session, kept)
    Webhook.objects.filter(pk=hook.pk).update(failed_attempts=3)
    hook.failed_attempts = 4
    hook.save(update_fields=["failed_attempts"])
    assert _targets_read(session) == (["http://127.0.0.1:9/old"], 0 if kept else 1)
