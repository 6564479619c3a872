"""`manage.py run_engine`: an engine process for RemoteEngine (see messaging.engines.remote.host)."""

from __future__ import annotations

import logging
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core import metrics
from messaging.engines.remote.host import EngineHost
from messaging.services.events import engine_event_receive


class Command(BaseCommand):
    help = "Host live messaging sessions for RemoteEngine (driver ENGINE_DRIVER); SIGTERM drains."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--driver", default=settings.ENGINE_DRIVER, help="sandbox or whatsapp (default: ENGINE_DRIVER)"
        )
        parser.add_argument("--max-sessions", type=int, default=settings.ENGINE_MAX_SESSIONS)
        parser.add_argument("--id", default="", help="process id in the registry (default: host-pid-random)")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.ENGINE_REDIS_URL:
            raise CommandError("Engine processes need Redis: set REDIS_URL (or ENGINE_REDIS_URL).")
        logging.basicConfig(level=logging.INFO, format="%(asctime)s engine %(levelname)s %(message)s")
        metrics.process_started()
        try:
            host = EngineHost(
                driver=options["driver"],
                max_sessions=options["max_sessions"],
                on_event=engine_event_receive,
                process_id=options["id"],
            )
        except ValueError as exc:  # an unknown driver
            raise CommandError(str(exc)) from None
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: host.stop())
        self.stdout.write(
            f"engine {host.id}: driver {options['driver']}, at most {host.max_sessions} sessions"
        )
        self.stdout.flush()
        host.run()
        self.stdout.write(f"engine {host.id}: drained")
