"""The webhooks app. A worker that starts sweeps the outbox at once (see `sweep_on_worker_start`)."""

from celery.signals import worker_ready
from django.apps import AppConfig


def sweep_on_worker_start(sender=None, **kwargs) -> None:
    """A starting worker sweeps the deliveries (and the event stream's jobs, swept with them) at once
    and when the oldest claim held now lapses (jobs.startup)."""
    from jobs.startup import start_up_sweep
    from webhooks.outbox.deliveries import QUEUE
    from webhooks.tasks import sweep_deliveries

    start_up_sweep(sweep_deliveries, [QUEUE], what="the webhook deliveries")


class WebhooksConfig(AppConfig):
    name = "webhooks"

    def ready(self) -> None:
        from webhooks import lookups

        lookups.connect()
        worker_ready.connect(sweep_on_worker_start, dispatch_uid="webhooks-sweep-on-worker-start")
