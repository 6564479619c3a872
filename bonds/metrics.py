"""The bond list's freshness and size, read at scrape time (core/metrics.py)."""

from __future__ import annotations

from django.db.models import Count, Max

from bonds.models import Bond, Product, RefreshRun
from core.metrics import Reading


def collect() -> list[Reading]:
    # A run succeeded when at least one provider did (ok or partial); a failed run changed nothing.
    last = RefreshRun.objects.filter(
        status__in=[RefreshRun.Status.OK, RefreshRun.Status.PARTIAL], finished_at__isnull=False
    ).aggregate(at=Max("finished_at"))["at"]
    offers = {(product.value,): 0.0 for product in Product}
    for row in Bond.objects.filter(is_active=True).values("product").annotate(n=Count("id")).order_by():
        if (row["product"],) in offers:
            offers[(row["product"],)] = row["n"]
    return [
        Reading(
            "ponte_bonds_refresh_last_success_timestamp_seconds",
            "When the last bond refresh in which a provider succeeded finished (Unix time; 0: never).",
            values={(): last.timestamp() if last else 0.0},
        ),
        Reading("ponte_bonds_offers", "Active bond offers.", ("product",), offers),
    ]
