"""The Celery application: settings come from Django's settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_ready
from kombu.transport import TRANSPORT_ALIASES

# filesystem:// (the embedded default broker) with atomic writes: see config/kombu_filesystem.py.
TRANSPORT_ALIASES["filesystem"] = "config.kombu_filesystem:Transport"

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("ponte")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _recycle_database_connections(task=None, **kwargs) -> None:
    """Close connections past CONN_MAX_AGE or broken, as Django does around each request (the fixup's
    per-task close is off: CELERY_DB_REUSE_MAX). Never in an eager task: it runs inside the caller's
    transaction, whose connection must stay open."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_ready.connect
def _sweep_on_start(sender=None, **kwargs) -> None:
    """A worker that starts (often one replacing a killed one) sweeps at once, and again as soon as the
    oldest claim held now lapses (claims a dead worker left lapse one lease after their last renewal),
    so those deliveries do not wait for beat. Sweeping is idempotent: many sweeps, one hint per target."""
    import logging

    from django.db import connection

    from webhooks.outbox import next_lapse_in
    from webhooks.tasks import sweep_deliveries

    try:
        sweep_deliveries.apply_async(kwargs={"grace_seconds": 0})
        lapse = next_lapse_in()
        if lapse is not None:
            sweep_deliveries.apply_async(kwargs={"grace_seconds": 0}, countdown=lapse + 0.5)
    except Exception:  # the broker or the database is away: beat sweeps once they are back
        logging.getLogger(__name__).warning("Could not schedule the start-up sweep", exc_info=True)
    finally:
        connection.close()  # the main process runs no tasks: do not keep its connection open
