"""The webhooks app. A worker that starts listens for delivery wake-ups and sweeps the outbox at once
(see `sweep_on_worker_start`)."""

from celery.signals import worker_ready, worker_shutdown, worker_shutting_down
from django.apps import AppConfig

_listener = None  # this worker process's wake-up listener (jobs.wakeups), when it runs one


def sweep_on_worker_start(sender=None, **kwargs) -> None:
    """A starting worker that consumes the deliveries' queue listens for their wake-ups (jobs.wakeups);
    every worker sweeps the deliveries (and the event stream's jobs, swept with them) at once and when
    the oldest claim held now lapses (jobs.startup)."""
    from jobs.startup import start_up_sweep
    from webhooks.outbox.deliveries import QUEUE
    from webhooks.tasks import sweep_deliveries

    if _consumes(sender, "webhooks"):
        _listen()
    start_up_sweep(sweep_deliveries, [QUEUE], what="the webhook deliveries")


def _consumes(consumer, queue: str) -> bool:
    try:
        return queue in {q.name for q in consumer.task_consumer.queues}
    except AttributeError:  # no consumer at hand: listen, as a worker of every queue would
        return True


def _listen() -> None:
    global _listener
    from django.conf import settings

    from jobs import wakeups
    from webhooks.outbox.hints import DELIVER_TASK, sweep_at_once
    from webhooks.tasks import deliver

    if _listener is not None or not wakeups.listening():
        return
    _listener = wakeups.Listener(
        {DELIVER_TASK: deliver}, threads=int(settings.PONTE_WAKE_LIST_THREADS), on_back=sweep_at_once
    ).start()


def stop_popping(**kwargs) -> None:
    """A worker whose shutdown begins pops no more wake-ups (Celery stops taking tasks then too)."""
    if _listener is not None:
        _listener.stop_popping()


def stop_listening(**kwargs) -> None:
    """A worker shutting down lets the wake-ups under way finish, as Celery lets its tasks."""
    global _listener
    if _listener is not None:
        _listener.stop()
        _listener = None


class WebhooksConfig(AppConfig):
    name = "webhooks"

    def ready(self) -> None:
        from webhooks import lookups

        lookups.connect()
        worker_ready.connect(sweep_on_worker_start, dispatch_uid="webhooks-sweep-on-worker-start")
        worker_shutting_down.connect(stop_popping, dispatch_uid="webhooks-stop-popping")
        worker_shutdown.connect(stop_listening, dispatch_uid="webhooks-stop-listening")
