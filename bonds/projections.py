"""The projections behind every figure: the latest snapshot as bonds.finance's Projection (Focus
meetings dated by BCB's calendar or estimated), what a listing assumed (its `assumptions`), the custody
fee by amount, and what an amount invested in a bond becomes. Reads only; no Django request."""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from bonds import finance
from bonds.models import Bond, ProjectionSnapshot


def projection_latest() -> ProjectionSnapshot | None:
    return ProjectionSnapshot.objects.order_by("-date").first()


def projection_of(snapshot: ProjectionSnapshot | None) -> finance.Projection | None:
    """The snapshot's figures (stored in %) as decimals for bonds.finance; None without a snapshot."""
    if snapshot is None:
        return None

    def years(values: dict) -> dict[int, float]:
        return {int(year): float(value) / 100 for year, value in (values or {}).items()}

    gap = None if snapshot.cdi_gap is None else snapshot.cdi_gap / 100
    selic = snapshot.selic_current
    if selic is None and snapshot.cdi_current is not None:
        selic = snapshot.cdi_current + (gap if gap is not None else finance.DEFAULT_CDI_GAP) * 100
    meetings, names = meeting_path(snapshot)
    return finance.Projection(
        selic_by_year=years(snapshot.selic_by_year),
        ipca_by_year=years(snapshot.ipca_by_year),
        selic_current=None if selic is None else selic / 100,
        ipca_12m=None if snapshot.ipca_12m is None else snapshot.ipca_12m / 100,
        selic_by_meeting=meetings,
        cdi_gap=gap,
        as_of=snapshot.date,
        meeting_names=names,
    )


def meeting_path(
    snapshot: ProjectionSnapshot,
) -> tuple[dict[date, float], dict[date, tuple[str, bool, str | None]]]:
    """Every ordinary Copom meeting (eight a year) from the snapshot's day through the last year Focus
    has a median for, dated by BCB's calendar as the refresh read it (over the fallback data file) or
    estimated (the same meeting a year before plus 52 weeks, off weekends and holidays, flagged); each
    with its Focus median as published, the year-end median at a year's last meeting, or the previous
    target kept (bonds.finance.meetings_on_path). Meetings already held are dropped: SGS's current
    target is the fact. Returns the targets by decision day (decimals) and each day's (meeting,
    estimated, source)."""
    meetings = finance.meetings_on_path(
        calendar=finance.calendar_with_fallback(snapshot.copom_calendar),
        medians={code: float(v) / 100 for code, v in (snapshot.selic_by_meeting or {}).items()},
        year_end={int(year): float(v) / 100 for year, v in (snapshot.selic_by_year or {}).items()},
        after=snapshot.date,
        current=None if snapshot.selic_current is None else snapshot.selic_current / 100,
    )
    targets = {meeting.day: meeting.target for meeting in meetings}
    names = {meeting.day: (meeting.code, meeting.estimated, meeting.source) for meeting in meetings}
    return targets, names


def custody_fee_for(*, product: str, index: str, amount: float, name: str = "") -> float:
    """The B3 custody fee a year on `amount` of an offer (Tesouro Direto only), as a share of the
    amount: Tesouro Selic pays on the excess over BRL 10,000 only, Renda+/Educa+ held to maturity
    nothing (bonds.finance.custody_fee_rate)."""
    return finance.custody_fee_rate(product=product, index=index, amount=amount, name=name)


def bond_net_amount_at_maturity(
    *,
    bond: Bond,
    amount: float,
    start: date | None = None,
    snapshot: ProjectionSnapshot | None = None,
    until: date | None = None,
) -> finance.AmountProjection:
    """What `amount` BRL invested in `bond` by an order placed on `start` (default today) becomes by
    maturity (gross, fees, tax, net), counted from the order's settlement date; a coupon bond's flows
    summed. `until`: redeemed that day instead, at the contract rate (a bullet offer that can be)."""
    snapshot = snapshot or projection_latest()
    terms = finance.coupon_terms(name=bond.name, index=bond.index, coupon_months=bond.coupon_months)
    return finance.project_amount(
        amount=amount,
        index=bond.index,
        rate=bond.rate,
        start=finance.settlement_date(start or timezone.localdate()),
        maturity=until or bond.maturity_date,
        projection=projection_of(snapshot),
        tax_free=bond.tax_free,
        custody_fee=custody_fee_for(product=bond.product, index=bond.index, amount=amount, name=bond.name),
        coupon=None if until else terms,
    )


# --- What the listing assumed -----------------------------------------------------------------------


def listing_assumptions(snapshot: ProjectionSnapshot | None, today: date) -> dict | None:
    """The `assumptions` of a JSON listing: the CDI path every cdi*/cdi+/selic figure compounds over
    (each segment from its `from` day until the next one's), the IPCA projections by year, the
    survey dates and the poupança benchmark. None without a snapshot."""
    projection = projection_of(snapshot)
    if snapshot is None or projection is None:
        return None
    # No TR known (SGS 226 never answered): no benchmark rather than one with TR = 0, which understated
    # poupança by about 2 pp a year.
    tr = None if snapshot.tr_monthly is None else snapshot.tr_monthly / 100
    poupanca = None if tr is None else finance.poupanca_annual_return(projection, today, tr)
    return {
        "projection_date": snapshot.date.isoformat(),
        "settlement_date": finance.settlement_date(today).isoformat(),
        "survey_date": None if snapshot.focus_date is None else snapshot.focus_date.isoformat(),
        "meetings_survey_date": (
            None if snapshot.meetings_focus_date is None else snapshot.meetings_focus_date.isoformat()
        ),
        "cdi_selic_gap": projection.gap,
        "cdi_path": [
            {
                "from": step.start.isoformat(),
                "cdi": step.cdi,
                "selic": step.cdi,
                "selic_target": step.selic_target,
                "meeting": step.meeting,
                "estimated_date": step.estimated_date,
                "median_source": step.median_source,
            }
            for step in projection.path_from(today)
        ],
        "ipca_by_year": {str(year): rate for year, rate in sorted(projection.ipca_by_year.items())},
        "ipca_12m": projection.ipca_12m,
        "poupanca": {
            "annual_return": poupanca,
            "tr_monthly": tr,
            "tr_date": None if snapshot.tr_date is None else snapshot.tr_date.isoformat(),
            "tr_source": "SGS 226, the TR in force" if tr is not None else "unknown (SGS 226 gave none)",
        },
    }
