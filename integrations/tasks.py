"""Celery discovers tasks in `<app>.tasks`: the Chatwoot mirror's and the bots' are registered from here."""

from integrations.bots import tasks as bots_tasks  # noqa: F401
from integrations.chatwoot.tasks import drain, purge, sweep  # noqa: F401
