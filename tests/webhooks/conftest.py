"""Fixtures of the webhooks tests: sessions, a receiver and a webhook to it, a real Celery worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.db import connection

from messaging.models import Session
from tests.webhooks.support import Receiver, Worker, purge_queues
from webhooks.models import Webhook


@pytest.fixture
def session(account) -> Session:
    return Session.objects.create(account=account, name="main", status=Session.Status.CONNECTED)


@pytest.fixture
def make_receiver() -> Iterator[Callable[..., Receiver]]:
    receivers: list[Receiver] = []

    def make(**kwargs) -> Receiver:
        receiver = Receiver(**kwargs).start()
        receivers.append(receiver)
        return receiver

    yield make
    for receiver in receivers:
        receiver.stop()


@pytest.fixture
def receiver(make_receiver) -> Receiver:
    return make_receiver()


@pytest.fixture
def hook(session, receiver, allow_loopback) -> Webhook:
    """The session's webhook of `message` events to the local receiver, signed with the secret `s3cret`."""
    return Webhook.objects.create(
        account=session.account, session=session, url=receiver.url, events=["message"], secret="s3cret"
    )


@pytest.fixture
def start_worker(transactional_db) -> Iterator[Callable[..., Worker]]:
    """Start real Celery workers on the test database (the test's rows must be committed, hence
    transactional_db); every worker is stopped at the end of the test."""
    workers: list[Worker] = []

    def start(**kwargs) -> Worker:
        if not workers:
            purge_queues()
        worker = Worker(**kwargs).start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


# The deliveries' job stores this database can run (webhooks.outbox.store): the ORM's everywhere, the
# one-statement store on PostgreSQL too. Tests of the store take `each_store` to run under each.
STORES_HERE = ["orm", "postgresql"] if connection.vendor == "postgresql" else ["orm"]


@pytest.fixture(params=STORES_HERE)
def each_store(request, settings) -> str:
    settings.PONTE_OUTBOX_STORE = request.param
    return request.param
