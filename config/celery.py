"""The Celery application: settings come from Django's settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    beat_init,
    before_task_publish,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
)
from kombu.transport import TRANSPORT_ALIASES

# filesystem:// (the embedded default broker) with atomic writes: see core/kombu_filesystem.py.
TRANSPORT_ALIASES["filesystem"] = "core.kombu_filesystem:Transport"
# redis:// that a worker survives losing while it holds messages: see core/kombu_redis.py.
TRANSPORT_ALIASES["redis"] = TRANSPORT_ALIASES["rediss"] = "core.kombu_redis:Transport"

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


# --- Observability: metrics files, request ids, log format (core/metrics.py, core/logs.py) -----

REQUEST_ID_HEADER = "ponte_request_id"


@worker_init.connect
@worker_process_init.connect
@beat_init.connect
def _metrics_process_started(**kwargs) -> None:
    from core import metrics

    metrics.process_started()


@after_setup_logger.connect
@after_setup_task_logger.connect
def _log_lines(logger=None, **kwargs) -> None:
    from django.conf import settings

    from core.logs import celery_handlers_configured

    if logger is not None:
        celery_handlers_configured(
            logger, json_lines=settings.PONTE_LOG_FORMAT == "json", clock=settings.PONTE_LOG_CLOCK
        )


@before_task_publish.connect
def _carry_request_id(headers=None, **kwargs) -> None:
    """A task published while handling a request carries its id, so the worker's lines carry it too."""
    from core.logs import current_request_id

    request_id = current_request_id()
    if request_id and headers is not None:
        headers[REQUEST_ID_HEADER] = request_id


@task_prerun.connect
def _task_request_id(task=None, **kwargs) -> None:
    from core.logs import request_id_var

    if task is not None and not getattr(task.request, "is_eager", False):
        request_id_var.set(getattr(task.request, REQUEST_ID_HEADER, None) or "")


@task_postrun.connect
def _task_request_id_done(task=None, **kwargs) -> None:
    from core.logs import request_id_var

    if task is not None and not getattr(task.request, "is_eager", False):
        request_id_var.set("")
