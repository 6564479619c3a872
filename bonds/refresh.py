"""The daily refresh: every provider (Focus, SGS, Tesouro, broker feeds) → the day's projections →
offers upserted by natural key → returns recomputed → cached replies invalidated."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bonds.figures import bond_returns_recompute
from bonds.models import BrokerFeed, Issuer, RefreshRun
from bonds.offers import UpsertCounts, bond_offers_upsert
from bonds.providers import copom, focus, sgs, tesouro
from bonds.providers import feeds as feed_provider
from bonds.providers.base import Offer, ProviderError
from bonds.replies import data_version_bump
from bonds.snapshots import projection_snapshot_record

logger = logging.getLogger(__name__)

Progress = Callable[[str], None]


def _tesouro_issuer() -> None:
    Issuer.objects.get_or_create(
        code=tesouro.TESOURO_BANK_CODE,
        defaults={
            "name": tesouro.TESOURO_BANK_NAME,
            "rating": "brAAA",
            "rating_agency": "sovereign (national scale)",
            "sovereign": True,
        },
    )


@dataclass
class RefreshState:
    """A refresh under way: what each provider did, and the totals of the offers it upserted."""

    run: RefreshRun
    today: date
    timeout: float
    say: Progress
    outcomes: dict[str, dict] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    totals: UpsertCounts = field(default_factory=UpsertCounts)
    found: dict[str, Any] = field(default_factory=dict)

    def attempt(self, name: str, work: Callable[[], dict]) -> bool:
        """Run one provider's `work`; a failure is recorded with its reason and stops nothing else."""
        self.say(f"{name}: fetching…")
        started = time.monotonic()
        try:
            detail = work()
        except Exception as exc:  # one provider's failure must not stop the others
            if not isinstance(exc, ProviderError):
                logger.exception("Bond refresh: provider %s failed unexpectedly", name)
                exc = ProviderError(f"unexpected {type(exc).__name__}: {exc}")
            seconds = round(time.monotonic() - started, 2)
            self.outcomes[name] = {"ok": False, "error": str(exc), "seconds": seconds}
            self.errors.append(f"{name}: {exc}")
            self.say(f"{name}: FAILED: {exc}")
            return False
        self.outcomes[name] = {"ok": True, **detail, "seconds": round(time.monotonic() - started, 2)}
        self.say(f"{name}: ok {_describe(detail)}")
        return True


def bonds_refresh(*, trigger: str = "command", progress: Progress | None = None) -> RefreshRun:
    """Run every provider, record the run, recompute returns and invalidate cached replies.

    Each provider runs on its own: one that fails leaves its data as it was and the run says why
    (`RefreshRun.status` ok / partial / failed, `failed_sources`, each provider's outcome).
    """
    state = RefreshState(
        run=RefreshRun.objects.create(trigger=trigger),
        today=timezone.localdate(),
        timeout=settings.BONDS_HTTP_TIMEOUT,
        say=progress or (lambda _line: None),
    )
    snapshot_changed = projections_refresh(state)
    offers_refresh(state)
    recomputed = bond_returns_recompute(today=state.today)
    state.say(f"returns: {recomputed} bond(s) changed")
    return run_finish(state, recomputed=recomputed, snapshot_changed=snapshot_changed)


def projections_refresh(state: RefreshState) -> bool:
    """Focus (annual and per meeting), SGS, the TR and BCB's Copom calendar → the day's snapshot (a failed
    source keeps the previous snapshot's figures). Whether the snapshot changed."""
    base, timeout, today, found = settings.BONDS_FOCUS_BASE_URL, state.timeout, state.today, state.found

    def focus_work() -> dict:
        medians = found["focus"] = focus.fetch(base_url=base, timeout=timeout, today=today)
        return {
            "survey_date": medians.survey_date.isoformat(),
            "selic_years": sorted(medians.selic_by_year),
            "ipca_years": sorted(medians.ipca_by_year),
        }

    def meetings_work() -> dict:
        meetings = found["meetings"] = focus.fetch_meetings(base_url=base, timeout=timeout, today=today)
        return {"survey_date": meetings.survey_date.isoformat(), "meetings": list(meetings.selic_by_meeting)}

    def sgs_work() -> dict:
        rates = found["sgs"] = sgs.fetch(base_url=settings.BONDS_SGS_BASE_URL, timeout=timeout)
        return {
            "selic_target": rates.selic_target,
            "cdi": rates.cdi,
            "cdi_gap": rates.cdi_gap,
            "ipca_12m": rates.ipca_12m,
        }

    def tr_work() -> dict:
        tr = found["tr"] = sgs.fetch_tr(base_url=settings.BONDS_SGS_BASE_URL, timeout=timeout, today=today)
        return {"tr_monthly": tr.monthly_pct, "tr_date": tr.day.isoformat()}

    def calendar_work() -> dict:
        calendar = found["calendar"] = copom.fetch(url=settings.BONDS_COPOM_CALENDAR_URL, timeout=timeout)
        return {"years": calendar.years, "meetings": len(calendar.meetings)}

    state.attempt("focus", focus_work)
    state.attempt("focus-copom", meetings_work)
    state.attempt("copom-calendar", calendar_work)
    state.attempt("sgs", sgs_work)
    state.attempt("sgs-tr", tr_work)
    if not found:
        return False
    _, changed = projection_snapshot_record(
        day=today,
        focus_medians=found.get("focus"),
        current=found.get("sgs"),
        meetings=found.get("meetings"),
        calendar=found.get("calendar"),
        tr=found.get("tr"),
    )
    return changed


def offers_refresh(state: RefreshState) -> None:
    """Tesouro and each active broker feed: offers upserted by natural key (a failed provider's
    offers stay as they were)."""
    _tesouro_issuer()
    timeout = state.timeout
    state.attempt(
        tesouro.SOURCE,
        _offers_work(
            state, tesouro.SOURCE, lambda: tesouro.fetch(url=settings.BONDS_TESOURO_CSV_URL, timeout=timeout)
        ),
    )
    for feed in BrokerFeed.objects.filter(is_active=True):
        state.attempt(
            feed.source, _offers_work(state, feed.source, lambda feed=feed: _feed_offers(feed, timeout), feed)
        )


def _offers_work(
    state: RefreshState, source: str, fetch: Callable[[], list[Offer]], feed: BrokerFeed | None = None
) -> Callable[[], dict]:
    def work() -> dict:
        try:
            offers = fetch()
        except ProviderError as exc:
            if feed is not None:
                BrokerFeed.objects.filter(pk=feed.pk).update(
                    last_fetched_at=timezone.now(), last_error=str(exc)
                )
            raise
        counts = bond_offers_upsert(source=source, offers=offers)
        for name in ("created", "updated", "deactivated"):
            setattr(state.totals, name, getattr(state.totals, name) + getattr(counts, name))
        if feed is not None:
            BrokerFeed.objects.filter(pk=feed.pk).update(
                last_fetched_at=timezone.now(), last_count=len(offers), last_error=""
            )
        return counts.as_dict()

    return work


def run_finish(state: RefreshState, *, recomputed: int, snapshot_changed: bool) -> RefreshRun:
    """Record the run (ok: every provider succeeded; failed: none did; partial otherwise) and
    invalidate cached replies when anything changed."""
    run, totals, outcomes = state.run, state.totals, state.outcomes
    succeeded = sum(1 for outcome in outcomes.values() if outcome["ok"])
    run.status = (
        RefreshRun.Status.OK
        if succeeded == len(outcomes)
        else RefreshRun.Status.FAILED
        if succeeded == 0
        else RefreshRun.Status.PARTIAL
    )
    run.outcomes = outcomes
    run.created, run.updated, run.deactivated = totals.created, totals.updated, totals.deactivated
    run.recomputed = recomputed
    run.errors = "\n".join(state.errors)
    run.finished_at = timezone.now()
    run.save()
    if snapshot_changed or recomputed or totals.created or totals.updated or totals.deactivated:
        # Now, and again once the caller's transaction (if any) commits, so no process caches a
        # version derived from the data as it was before this refresh.
        data_version_bump()
        transaction.on_commit(data_version_bump)
    return run


def _feed_offers(feed: BrokerFeed, timeout: float) -> list[Offer]:
    what = f"broker feed {feed.name!r}"
    if feed.url:
        return feed_provider.fetch(url=feed.url, fmt=feed.format, timeout=timeout, what=what)
    if feed.file:
        try:
            with feed.file.open("rb") as handle:
                content = handle.read()
        except OSError as exc:
            raise ProviderError(f"{what}: cannot read the uploaded file ({exc})") from None
        return feed_provider.parse(content, fmt=feed.format, what=what)
    raise ProviderError(f"{what}: has neither a URL nor an uploaded file")


def _describe(detail: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in detail.items())
