from django.core.management.base import BaseCommand, CommandError

from bonds.models import RefreshRun
from bonds.refresh import bonds_refresh

# Exit statuses: 0 every provider succeeded; 3 some failed (the others' data was
# refreshed); 1 every provider failed (nothing changed). 2 is argparse's, for a wrong command line.
EXIT_PARTIAL = 3
EXIT_FAILED = 1


class Command(BaseCommand):
    help = (
        "Refresh bond offers and projections from every provider (BCB Focus, BCB SGS, Tesouro Direto, "
        "broker feeds), recompute returns and invalidate cached replies. Exit status 0: every provider "
        "succeeded; 3: some failed (named on stderr); 1: every provider failed."
    )

    def handle(self, *args, **options) -> None:
        run = bonds_refresh(trigger="command", progress=lambda line: self.stdout.write(f"  {line}"))
        if run.status == RefreshRun.Status.OK:
            self.stdout.write(self.style.SUCCESS(run.summary))
            return
        self.stderr.write(run.summary)
        for name in run.failed_sources:
            self.stderr.write(f"  {name}: {run.outcomes[name].get('error', 'failed')}")
        failed = ", ".join(run.failed_sources)
        if run.status == RefreshRun.Status.FAILED:
            raise CommandError(
                f"Every provider failed ({failed}); offers and projections were left as they were.",
                returncode=EXIT_FAILED,
            )
        raise CommandError(
            f"Partial refresh: {failed} failed; their data was left as it was, the rest was refreshed.",
            returncode=EXIT_PARTIAL,
        )
