"""Celery discovers tasks in `<app>.tasks`: the Chatwoot mirror's are registered from here."""

from integrations.chatwoot.tasks import drain, sweep  # noqa: F401
