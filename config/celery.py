"""The Celery application: settings come from Django's settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
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
