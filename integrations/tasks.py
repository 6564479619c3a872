"""Celery discovers tasks in `<app>.tasks`: the Chatwoot mirror's are registered from here."""

from integrations.chatwoot.tasks import drain, purge, sweep  # noqa: F401
