"""Ponte's settings.

Driven by the environment, and it runs with no environment at all: an SQLite file, the local-memory
cache, a filesystem Celery broker and the sandbox messaging engine. Set DATABASE_URL and REDIS_URL to
run on PostgreSQL and Redis instead (CI and production).

Three parts: core.py (Django, database, cache, web tier, security, API), logs.py (logging) and
apps.py (Celery and each interface's own settings); the environment readers are core/env.py.
"""

from config.settings.apps import *  # noqa: F403
from config.settings.core import *  # noqa: F403
from config.settings.logs import *  # noqa: F403
from core.env import BASE_DIR, VAR_DIR  # noqa: F401
