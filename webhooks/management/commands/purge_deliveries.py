from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandParser

from webhooks.outbox import retention


class Command(BaseCommand):
    help = (
        "Purge delivered deliveries and their attempts older than PONTE_DELIVERY_RETENTION_DAYS, dead "
        "letters older than 7 days, and the old events no delivery needs any more, in small batches "
        "(what the hourly beat jobs do), printing progress. Safe while workers deliver."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, help="Keep delivered deliveries this many days (default: the setting)."
        )
        parser.add_argument("--batch", type=int, help="Rows per batch (default PONTE_DELIVERY_PURGE_BATCH).")
        parser.add_argument("--max-seconds", type=float, help="Stop after this long; a later run goes on.")
        parser.add_argument("--quiet-batches", action="store_true", help="Print only the summary.")

    def handle(self, *args, **options) -> None:
        if options["days"] is not None and options["days"] < 1:
            self.stderr.write("--days must be 1 or more.")
            raise SystemExit(2)
        running = {"delivered": 0, "dead_letters": 0, "events": 0}
        labels = {"delivered": "delivered deliveries", "dead_letters": "dead letters", "events": "events"}

        def progress(what: str, rows: int, seconds: float) -> None:
            running[what] += rows
            if not options["quiet_batches"]:
                self.stdout.write(
                    f"  {labels[what]}: {running[what]} purged ({rows} in {seconds * 1000:.0f} ms)"
                )

        totals = retention.deliveries_purge(
            kept_for=timedelta(days=options["days"]) if options["days"] else None,
            limit=options["batch"],
            max_seconds=options["max_seconds"],
            progress=progress,
        )
        summary = (
            f"Purged {totals.delivered} delivered deliveries, {totals.dead_letters} dead letters, "
            f"{totals.held} held deliveries, {totals.attempts} attempts and {totals.events} events in "
            f"{totals.batches} batch(es), {totals.seconds:.1f} s."
        )
        if totals.complete:
            self.stdout.write(self.style.SUCCESS(summary))
        else:
            self.stdout.write(summary + " Stopped on --max-seconds: run again to go on.")
