"""The Celery application: settings come from Django's settings under the CELERY_ prefix."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

# filesystem:// (the embedded default broker) with atomic writes: see config/kombu_filesystem.py.
TRANSPORT_ALIASES["filesystem"] = "config.kombu_filesystem:Transport"

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("ponte")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
