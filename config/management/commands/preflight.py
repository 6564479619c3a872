from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.startup import database_problem, port_problem


class Command(BaseCommand):
    help = "Check what `make run` needs first: the database answers and, with --port, the port is free."
    # Run before `migrate`: the checks would print their warnings a second time in the same start.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", action="store_true", help="Also check PONTE_HOST:PONTE_PORT is free.")

    def handle(self, *args, port: bool, **options) -> None:
        problems = [database_problem(database_url=settings.DATABASE_URL)]
        if port:
            problems.insert(0, port_problem(host=settings.PONTE_HOST, port=settings.PONTE_PORT))
        found = [problem for problem in problems if problem]
        if found:
            raise CommandError("\n\n".join(found))
