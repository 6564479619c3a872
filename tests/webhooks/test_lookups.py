"""Lookups kept per process (webhooks.lookups): what emit() needs of a session and the Chatwoot sink's
"does this session have a working integration" are read once, and dropped on every write, in the
writing process at once and in the others through the version in the shared cache."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from integrations.chatwoot import sink
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob
from messaging.engines.events import MessageEvent
from webhooks import lookups
from webhooks.models import Delivery, Webhook
from webhooks.registered.services import webhook_delete
from webhooks.services import emit

# Real commits: a write inside an open transaction is seen only by its own connection, which then
# reads the database itself (test_a_connection_that_wrote_reads_its_own_rows_until_it_commits).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shared_cache(settings, tmp_path):
    """A cache every process could share (as Redis is)."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": tmp_path}
    }
    settings.PONTE_LOOKUP_CHECK_SECONDS = 60  # a long interval: only this process's bumps drop at once


def _emit(session, text: str = "hi"):
    return emit(session_id=session.id, name="message", data={"text": text}, chat="c")


def _write_elsewhere(hook: Webhook) -> None:
    """INSERT the webhook's row as another process would: none of this process's writes is told."""
    fields = list(Webhook._meta.local_concrete_fields)
    values = [f.get_db_prep_save(f.pre_save(hook, True), connection) for f in fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(Webhook._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(values))})", values)


def _targets_reads(queries) -> int:
    return sum("webhooks_instancewebhookconfig" in q["sql"] for q in queries.captured_queries)


def test_a_sessions_targets_are_read_once_then_kept(session, shared_cache):
    _emit(session)
    with CaptureQueriesContext(connection) as queries:
        _emit(session)
    assert _targets_reads(queries) == 0


def test_a_webhook_written_is_seen_by_the_next_event_in_the_writing_process(session, shared_cache):
    _emit(session)  # kept: no webhook
    hook = Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/h", events=["message"]
    )
    assert Delivery.objects.filter(event=_emit(session)).count() == 1
    webhook_delete(webhook=hook)
    assert Delivery.objects.filter(event=_emit(session)).count() == 0


def test_a_write_in_another_process_is_seen_once_the_version_moved(session, shared_cache, settings):
    _emit(session)
    # Another process wrote a webhook: its row is there and the version in the shared cache moved,
    # and this process's own drop never ran (its rows written past this process's models).
    _write_elsewhere(
        Webhook(account=session.account, session=session, url="https://93.184.215.14/h", events=["message"])
    )
    cache.set("lookups:session-targets:version", 10**15, timeout=None)
    assert Delivery.objects.filter(event=_emit(session)).count() == 0  # not checked yet: kept
    settings.PONTE_LOOKUP_CHECK_SECONDS = 0
    assert Delivery.objects.filter(event=_emit(session)).count() == 1


def test_a_connection_that_wrote_reads_its_own_rows_until_it_commits(session, shared_cache):
    _emit(session)
    with transaction.atomic():
        Webhook.objects.create(  # seen by this transaction only; a rollback could take it back
            account=session.account, session=session, url="https://93.184.215.14/h", events=["message"]
        )
        with CaptureQueriesContext(connection) as inside:
            first, second = _emit(session), _emit(session)
        assert Delivery.objects.filter(event__in=[first, second]).count() == 2
    assert _targets_reads(inside) == 2  # read each time, never kept
    with CaptureQueriesContext(connection) as after:
        third, fourth = _emit(session), _emit(session)
    assert _targets_reads(after) == 1 and Delivery.objects.filter(event__in=[third, fourth]).count() == 2


def test_a_rolled_back_write_leaves_nothing_behind(session, shared_cache):
    _emit(session)
    with pytest.raises(RuntimeError), transaction.atomic():
        Webhook.objects.create(
            account=session.account, session=session, url="https://93.184.215.14/h", events=["message"]
        )
        _emit(session)
        raise RuntimeError("rolled back")
    assert Delivery.objects.filter(event=_emit(session)).count() == 0


def test_without_a_shared_cache_every_event_reads_the_database(session, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert not lookups.shared_cache()
    _emit(session)
    with CaptureQueriesContext(connection) as queries:
        _emit(session)
    assert _targets_reads(queries) == 1


def test_the_mirror_sink_asks_once_whether_a_session_has_an_integration(session, shared_cache):
    event = MessageEvent(id="W1", chat_jid="5511@s.whatsapp.net", text="hi")
    sink.event_received(session_id=session.id, event=event)
    with CaptureQueriesContext(connection) as queries:
        sink.event_received(session_id=session.id, event=event)
    assert queries.captured_queries == []  # no integration, and it is known
    ChatwootIntegration.objects.create(
        session=session,
        base_url="https://chatwoot.example",
        access_token="t",
        inbox_identifier="i",
        inbox_id=1,
    )
    sink.event_received(session_id=session.id, event=event)
    job = MirrorJob.objects.get()
    assert job.kind == "message" and job.chat == "5511@s.whatsapp.net" and job.payload["text"] == "hi"
