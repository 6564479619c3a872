"""The daily refresh: every provider (Focus, SGS, Tesouro, broker feeds) → the day's projections →
offers upserted by natural key → returns recomputed → cached replies invalidated."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import date

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bonds.models import BrokerFeed, Issuer, RefreshRun
from bonds.providers import copom, focus, sgs, tesouro
from bonds.providers import feeds as feed_provider
from bonds.providers.base import Offer, ProviderError
from bonds.selectors import data_version_bump
from bonds.services import (
    UpsertCounts,
    bond_offers_upsert,
    bond_returns_recompute,
    projection_snapshot_record,
)

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


def bonds_refresh(*, trigger: str = "command", progress: Progress | None = None) -> RefreshRun:
    """Run every provider, record the run, recompute returns and invalidate cached replies.

    Each provider runs on its own: one that fails leaves its data as it was and the run says why.
    """
    say = progress or (lambda _line: None)
    run = RefreshRun.objects.create(trigger=trigger)
    today = timezone.localdate()
    timeout = settings.BONDS_HTTP_TIMEOUT
    outcomes: dict[str, dict] = {}
    errors: list[str] = []
    totals = UpsertCounts()

    def attempt(name: str, work: Callable[[], dict]) -> bool:
        say(f"{name}: fetching…")
        started = time.monotonic()
        try:
            detail = work()
        except Exception as exc:  # one provider's failure must not stop the others
            if not isinstance(exc, ProviderError):
                logger.exception("Bond refresh: provider %s failed unexpectedly", name)
                exc = ProviderError(f"unexpected {type(exc).__name__}: {exc}")
            outcomes[name] = {"ok": False, "error": str(exc), "seconds": round(time.monotonic() - started, 2)}
            errors.append(f"{name}: {exc}")
            say(f"{name}: FAILED: {exc}")
            return False
        outcomes[name] = {"ok": True, **detail, "seconds": round(time.monotonic() - started, 2)}
        say(f"{name}: ok {_describe(detail)}")
        return True

    def offers_work(
        source: str, fetch: Callable[[], list[Offer]], feed: BrokerFeed | None = None
    ) -> Callable:
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
            for name, value in counts.as_dict().items():
                if name != "offers":
                    setattr(totals, name, getattr(totals, name) + value)
            if feed is not None:
                BrokerFeed.objects.filter(pk=feed.pk).update(
                    last_fetched_at=timezone.now(), last_count=len(offers), last_error=""
                )
            return counts.as_dict()

        return work

    snapshot_changed = _projections_refresh(attempt, today=today, timeout=timeout)
    _tesouro_issuer()
    attempt(
        "tesouro",
        offers_work("tesouro", lambda: tesouro.fetch(url=settings.BONDS_TESOURO_CSV_URL, timeout=timeout)),
    )
    for feed in BrokerFeed.objects.filter(is_active=True):
        attempt(feed.source, offers_work(feed.source, lambda feed=feed: _feed_offers(feed, timeout), feed))

    recomputed = bond_returns_recompute(today=today)
    say(f"returns: {recomputed} bond(s) changed")
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
    run.errors = "\n".join(errors)
    run.finished_at = timezone.now()
    run.save()
    if snapshot_changed or recomputed or totals.created or totals.updated or totals.deactivated:
        # Now, and again once the caller's transaction (if any) commits, so no process caches a
        # version derived from the data as it was before this refresh.
        data_version_bump()
        transaction.on_commit(data_version_bump)
    return run


def _projections_refresh(
    attempt: Callable[[str, Callable[[], dict]], bool], *, today: date, timeout: float
) -> bool:
    """Focus (annual and per meeting), SGS and BCB's Copom calendar -> the day's ProjectionSnapshot
    (a source that failed keeps the previous snapshot's figures). Whether the snapshot changed."""
    found: dict[str, object] = {}

    def focus_work() -> dict:
        medians = focus.fetch(base_url=settings.BONDS_FOCUS_BASE_URL, timeout=timeout, today=today)
        found["focus"] = medians
        return {
            "survey_date": medians.survey_date.isoformat(),
            "selic_years": sorted(medians.selic_by_year),
            "ipca_years": sorted(medians.ipca_by_year),
        }

    def meetings_work() -> dict:
        meetings = focus.fetch_meetings(base_url=settings.BONDS_FOCUS_BASE_URL, timeout=timeout, today=today)
        found["meetings"] = meetings
        return {"survey_date": meetings.survey_date.isoformat(), "meetings": list(meetings.selic_by_meeting)}

    def sgs_work() -> dict:
        rates = sgs.fetch(base_url=settings.BONDS_SGS_BASE_URL, timeout=timeout)
        found["sgs"] = rates
        return {
            "selic_target": rates.selic_target,
            "cdi": rates.cdi,
            "cdi_gap": rates.cdi_gap,
            "ipca_12m": rates.ipca_12m,
            "tr_monthly": rates.tr_monthly,
        }

    def calendar_work() -> dict:
        calendar = copom.fetch(url=settings.BONDS_COPOM_CALENDAR_URL, timeout=timeout)
        found["calendar"] = calendar
        return {"years": calendar.years, "meetings": len(calendar.meetings)}

    attempt("focus", focus_work)
    attempt("focus-copom", meetings_work)
    attempt("copom-calendar", calendar_work)
    attempt("sgs", sgs_work)
    if not found:
        return False
    _, changed = projection_snapshot_record(
        day=today,
        focus_medians=found.get("focus"),
        current=found.get("sgs"),
        meetings=found.get("meetings"),
        calendar=found.get("calendar"),
    )
    return changed


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
