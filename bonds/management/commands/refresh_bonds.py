from django.core.management.base import BaseCommand, CommandError

from bonds.models import RefreshRun
from bonds.refresh import bonds_refresh


class Command(BaseCommand):
    help = (
        "Refresh bond offers and projections from every provider (BCB Focus, BCB SGS, Tesouro Direto, "
        "broker feeds), recompute returns and invalidate cached replies. Exits non-zero when every "
        "provider failed."
    )

    def handle(self, *args, **options) -> None:
        run = bonds_refresh(trigger="command", progress=lambda line: self.stdout.write(f"  {line}"))
        ok = sum(1 for outcome in run.outcomes.values() if outcome.get("ok"))
        summary = (
            f"Refresh #{run.pk} {run.status}: {ok}/{len(run.outcomes)} provider(s) ok; "
            f"{run.created} created, {run.updated} updated, {run.deactivated} deactivated, "
            f"{run.recomputed} with new returns."
        )
        if run.status == RefreshRun.Status.FAILED:
            self.stderr.write(summary)
            raise CommandError("Every provider failed; offers and projections were left as they were.")
        self.stdout.write(self.style.SUCCESS(summary) if run.status == RefreshRun.Status.OK else summary)
