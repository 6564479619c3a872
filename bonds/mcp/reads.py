"""The database work behind each MCP tool. Plain synchronous functions (the tools run them in a
worker thread): who the caller is (the REST statuses, via `bonds_access_status` with the key and
address read from the MCP call's HTTP request, so the preview rule and the 5-second rule are the
same code), the filtered list (`bond_list`), and projections of
an amount (`bond_net_amount_at_maturity`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from urllib.parse import parse_qs

from django.conf import settings
from django.utils import timezone

from accounts.authentication import bearer_or_query_key
from accounts.netaddr import client_address_of
from bonds import finance, statuses
from bonds.access import bonds_access_status
from bonds.filters import BondFilters, parse_filters
from bonds.for_amount import bonds_for_amount, computed_in_request
from bonds.mcp.schemas import (
    AmountOutcome,
    Assumptions,
    BondItem,
    BondListResult,
    CdiStep,
    SortOrder,
)
from bonds.models import Bond, ProjectionSnapshot
from bonds.projections import (
    bond_net_amount_at_maturity,
    listing_assumptions,
    projection_latest,
)
from bonds.replies import bond_list

MAX_LIMIT = 200
DAYS_PER_YEAR = 365.25


class BondNotFound(LookupError):
    """No active bond has the id asked for."""


# --- The caller -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caller:
    """Who calls a tool: the key presented (None: none) and the client's address."""

    plaintext_key: str | None
    client_ip: str


def caller_of(
    *, authorization: str | None, query_string: str, remote_addr: str, forwarded_for: str | None
) -> Caller:
    """The caller from the values of the MCP call's HTTP request, read as the REST API reads them
    (Bearer header first, then `?key=`; X-Forwarded-For only behind PONTE_TRUSTED_PROXIES)."""
    query_keys = parse_qs(query_string, keep_blank_values=True).get("key", [""])
    return Caller(
        plaintext_key=bearer_or_query_key(authorization=authorization or "", query_key=query_keys[-1]),
        client_ip=client_address_of(remote_addr=remote_addr, forwarded_for=forwarded_for or ""),
    )


def caller_status(caller: Caller) -> str:
    """preview (no key), unauthorized, no_subscription, payment_issue, rate_limited or ok."""
    return bonds_access_status(plaintext_key=caller.plaintext_key, client_ip=caller.client_ip)


# --- Shared pieces ----------------------------------------------------------------------------------


def assumptions_of(snapshot: ProjectionSnapshot | None) -> Assumptions | None:
    listed = listing_assumptions(snapshot, timezone.localdate())
    if snapshot is None or listed is None:
        return None
    return Assumptions(
        projection_date=snapshot.date,
        settlement_date=listed["settlement_date"],
        focus_survey_date=snapshot.focus_date,
        selic_target_pct=snapshot.selic_current,
        cdi_pct=snapshot.cdi_current,
        cdi_selic_gap_pp=snapshot.cdi_gap,
        selic_by_meeting_pct={
            code: float(v)
            for code, v in sorted(
                (snapshot.selic_by_meeting or {}).items(),
                key=lambda item: finance.meeting_key(item[0]) or (0, 0),
            )
        },
        ipca_12m_pct=snapshot.ipca_12m,
        selic_by_year_pct={str(year): float(v) for year, v in sorted((snapshot.selic_by_year or {}).items())},
        ipca_by_year_pct={str(year): float(v) for year, v in sorted((snapshot.ipca_by_year or {}).items())},
        cdi_path=[CdiStep(start=step.pop("from"), **step) for step in listed["cdi_path"]],
        poupanca_annual_return=listed["poupanca"]["annual_return"],
        tr_monthly=listed["poupanca"]["tr_monthly"],
        tr_date=listed["poupanca"]["tr_date"],
    )


def rounded(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _outcome(bond: Bond, amount: float, snapshot: ProjectionSnapshot | None) -> AmountOutcome:
    projected = bond_net_amount_at_maturity(bond=bond, amount=amount, snapshot=snapshot)
    net = projected.net_amount
    return AmountOutcome(
        amount=amount,
        gross_amount=projected.gross_amount,
        custody_fee=projected.custody_fee,
        iof=projected.iof,
        income_tax=projected.income_tax,
        net_amount=net,
        net_gain=None if net is None else round(net - amount, 2),
        meets_min_investment=amount >= bond.min_investment,
    )


def bond_item(
    bond: Bond, *, today: date, amount: float | None = None, snapshot: ProjectionSnapshot | None = None
) -> BondItem:
    return BondItem(
        id=bond.pk,
        name=bond.name,
        bank=bond.bank,
        bank_name=bond.bank_name,
        product=bond.product,
        index=bond.index,
        rate=bond.rate,
        fgc_protection=bond.fgc_protection,
        tax_free=bond.tax_free,
        exclusive=bond.exclusive,
        min_investment=bond.min_investment,
        maturity_date=bond.maturity_date,
        early_withdrawal=bond.early_withdrawal,
        rating=bond.rating,
        payment_probability=bond.payment_probability,
        net_annualized_return=bond.net_annualized_return,
        real_annualized_return=bond.real_annualized_return,
        liquidity_days=bond.liquidity_days,
        grace_period_days=bond.grace_period_days,
        net_return_cdi_percent=bond.net_return_cdi_percent,
        covered_payment_probability=bond.covered_payment_probability,
        fgc_covered_share=bond.fgc_covered_share,
        payment_schedule=bond.payment_schedule,
        first_payment_date=bond.first_payment_date,
        horizon_reachable=getattr(bond, "horizon_reachable", None),
        liquidity_kind=bond.liquidity_kind,
        years_to_maturity=round(max(0, (bond.maturity_date - today).days) / DAYS_PER_YEAR, 2),
        projection=None if amount is None else _outcome(bond, amount, snapshot),
    )


# --- list_bonds -------------------------------------------------------------------------------------


# The tool's own sort names (kept from its first version) and the REST `sort` they are.
LEGACY_SORTS: dict[str, str | None] = {
    "net_return": None,  # the default order
    "real_return": "-real_annualized_return",
    "maturity": "maturity_date",
}


def agent_filters(
    *,
    products: list[str],
    indexes: list[str],
    banks: list[int],
    tax_free: bool | None,
    fgc: bool | None,
    min_maturity: date | None,
    max_maturity: date | None,
    amount: float | None,
    rating_min: str | None,
    sort: SortOrder,
    horizon: date | None = None,
) -> BondFilters:
    """The tool's arguments as the REST filters, through the REST parser (the same normalisation
    and the same list as GET /bonds/api/ with these parameters)."""
    sort_value = LEGACY_SORTS.get(sort, sort)
    query = {
        "product": [",".join(products)],
        "index": [",".join(indexes)],
        "bank": [",".join(map(str, banks))],
        "tax_free": [] if tax_free is None else [str(int(tax_free))],
        "fgc": [] if fgc is None else [str(int(fgc))],
        "rating_min": [rating_min] if rating_min else [],
        "sort": [sort_value] if sort_value else [],
    }
    # Dates and the amount are already typed: set, not re-parsed (an amount with more decimals than
    # the REST form takes is still the amount asked).
    return replace(
        parse_filters(query),
        maturity_from=min_maturity,
        maturity_to=max_maturity,
        amount=amount,
        horizon=horizon,
    )


def bonds_for_agent(*, status: str, filters: BondFilters, sort: SortOrder, limit: int) -> BondListResult:
    """The list for a status: every match (up to `limit`) for ok, at most BONDS_PREVIEW_LIMIT for
    preview (the first of the filtered, sorted list), none otherwise. With an amount, only bonds it
    can buy, each with its projection."""
    today = timezone.localdate()
    amount = filters.amount
    empty = BondListResult(
        status=status,
        description=statuses.description(status),
        preview=status == statuses.PREVIEW,
        today=today,
        matching=0,
        returned=0,
        sort=sort,
        amount=amount,
        bonds=[],
        assumptions=None,
    )
    if status not in statuses.WITH_BONDS:
        return empty
    queryset = bond_list(filters=filters)
    cap = max(1, min(limit, MAX_LIMIT))
    if status == statuses.PREVIEW:
        cap = min(cap, settings.BONDS_PREVIEW_LIMIT)
    snapshot = projection_latest()
    # With an amount (or a horizon), every figure is the amount's (as GET /bonds/api/?amount= lists them).
    per_query = computed_in_request(filters)
    found = bonds_for_amount(queryset=queryset, filters=filters, today=today) if per_query else queryset
    bonds = [bond_item(bond, today=today, amount=amount, snapshot=snapshot) for bond in found[:cap]]
    return empty.model_copy(
        update={
            "matching": len(found) if per_query else queryset.count(),
            "returned": len(bonds),
            "bonds": bonds,
            "assumptions": assumptions_of(snapshot),
        }
    )


# --- project_bond -----------------------------------------------------------------------------------


def active_bond(bond_id: int) -> Bond:
    """An active bond that has not matured (a matured one is never offered, whatever the refresh)."""
    bond = Bond.objects.filter(pk=bond_id, is_active=True, maturity_date__gt=timezone.localdate()).first()
    if bond is None:
        raise BondNotFound(
            f"No active bond has id {bond_id}. Call list_bonds and use the `id` of one of its bonds."
        )
    return bond


def latest_assumptions() -> Assumptions | None:
    return assumptions_of(projection_latest())
