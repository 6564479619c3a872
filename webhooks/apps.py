"""The webhooks app. A worker that starts sweeps the outbox at once (see `sweep_on_worker_start`)."""

import logging

from celery.signals import worker_ready
from django.apps import AppConfig
from django.db import connection

logger = logging.getLogger(__name__)


def sweep_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (often one replacing a killed one) sweeps at once, and again as soon as the
    oldest claim held now lapses (claims a dead worker left lapse one lease after their last renewal),
    so those deliveries do not wait for beat. Sweeping is idempotent: many sweeps, one hint per target."""
    from webhooks.outbox.deliveries import next_lapse_in
    from webhooks.tasks import sweep_deliveries

    try:
        sweep_deliveries.apply_async(kwargs={"grace_seconds": 0})
        lapse = next_lapse_in()
        if lapse is not None:
            sweep_deliveries.apply_async(kwargs={"grace_seconds": 0}, countdown=lapse + 0.5)
    except Exception:  # the broker or the database is away: beat sweeps once they are back
        logger.warning("Could not schedule the start-up sweep", exc_info=True)
    finally:
        connection.close()  # the main process runs no tasks: do not keep its connection open


class WebhooksConfig(AppConfig):
    name = "webhooks"

    def ready(self) -> None:
        from webhooks import lookups

        lookups.connect()
        worker_ready.connect(sweep_on_worker_start, dispatch_uid="webhooks-sweep-on-worker-start")
