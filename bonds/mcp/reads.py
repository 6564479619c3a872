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
from bonds.figures import figures_for_amount
from bonds.filters import BondFilters, parse_filters
from bonds.for_amount import bonds_for_amount
from bonds.mcp.schemas import (
    AmountOutcome,
    Assumptions,
    BondItem,
    BondListResult,
    BondProjectionResult,
    CashFlowItem,
    CdiStep,
    SortOrder,
)
from bonds.models import Bond, ProjectionSnapshot
from bonds.projections import (
    bond_net_amount_at_maturity,
    custody_fee_for,
    listing_assumptions,
    projection_latest,
    projection_of,
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


def _round(value: float | None, digits: int = 6) -> float | None:
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
    return replace(parse_filters(query), maturity_from=min_maturity, maturity_to=max_maturity, amount=amount)


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
    # With an amount, every figure is the amount's (as GET /bonds/api/?amount= lists them).
    found = queryset if amount is None else bonds_for_amount(queryset=queryset, filters=filters, today=today)
    bonds = [bond_item(bond, today=today, amount=amount, snapshot=snapshot) for bond in found[:cap]]
    return empty.model_copy(
        update={
            "matching": queryset.count() if amount is None else len(found),
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


def _empty_projection(status: str, amount: float) -> BondProjectionResult:
    """The result with nothing projected (what a status without bonds gets)."""
    nulls = dict.fromkeys(
        [
            "bond",
            "business_days",
            "calendar_days",
            "income_tax_rate",
            "custody_fee_rate",
            "iof_rate",
            "gross_amount",
            "custody_fee",
            "iof",
            "income_tax",
            "net_amount",
            "net_gain",
            "gross_annualized_return",
            "net_annualized_return",
            "real_annualized_return",
            "projected_inflation",
            "meets_min_investment",
            "assumptions",
        ]
    )
    return BondProjectionResult(
        status=status,
        description=statuses.description(status),
        preview=status == statuses.PREVIEW,
        today=timezone.localdate(),
        amount=amount,
        notes=[],
        **nulls,
    )


def _projection_notes(
    bond: Bond, amount: float, projected: finance.AmountProjection, fee_rate: float
) -> list[str]:
    """The caveats of a projection, in plain English."""
    returns, notes = projected.returns, []
    if amount < bond.min_investment:
        notes.append(f"The amount is below this bond's minimum investment of BRL {bond.min_investment:,.2f}.")
    if returns.du <= 0:
        notes.append("The bond matures today or earlier: there is nothing left to project.")
    elif projected.net_amount is None:
        notes.append(
            "A projection this bond's index needs (Selic/CDI or IPCA) is missing, so amounts are null."
        )
    if returns.payment_date is not None and returns.payment_date != bond.maturity_date:
        notes.append(
            f"The maturity is not a business day: paid on {returns.payment_date.isoformat()}, and days, "
            "income tax and IOF count to then."
        )
    owed = None if returns.gross_factor is None else amount * returns.gross_factor
    if bond.fgc_protection and owed is not None and owed > finance.FGC_LIMIT_PER_INSTITUTION:
        notes.append(
            f"What is owed at maturity (about BRL {owed:,.2f}, principal plus interest) exceeds the FGC's "
            "BRL 250,000 per CPF per institution: the rest is issuer risk (see fgc_covered_share)."
        )
    if bond.fgc_protection:
        notes.append(
            "The FGC also caps what it pays one CPF at BRL 1,000,000 every four years across institutions, "
            "and counts every deposit the CPF has at this institution: not modelled here."
        )
    if bond.liquidity_kind == "sale":
        notes.append(
            "Before maturity it can only be sold at the day's market price (D+1), which may be below the "
            "contract rate's value."
        )
    elif not bond.early_withdrawal:
        notes.append("No redemption before maturity: the money is locked until maturity_date.")
    if bond.exclusive:
        notes.append("Restricted to qualified investors.")
    if returns.iof_rate:
        notes.append(
            f"Redeemed after {returns.dc} days: IOF takes {returns.iof_rate:.0%} of the income (Decreto "
            "6.306/2007) before income tax."
        )
    if fee_rate:
        notes.append(
            f"Tesouro Direto: the B3 custody fee ({fee_rate:.2%} a year on the whole amount; Tesouro Selic "
            "pays 0.20% on the excess over BRL 10,000 only) is deducted before income tax."
        )
    if returns.flows:
        notes.append(
            "Pays coupons: each is taxed at the bracket of its own holding period; the returns are the IRRs "
            "of the dated flows, and the amounts sum the flows as paid (not reinvested)."
        )
    return notes


def bond_projection(*, status: str, bond: Bond, amount: float) -> BondProjectionResult:
    """What `amount` invested today in `bond` becomes by maturity, step by step."""
    result = _empty_projection(status, amount)
    if status not in statuses.WITH_BONDS:
        return result
    snapshot = projection_latest()
    projected = bond_net_amount_at_maturity(bond=bond, amount=amount, snapshot=snapshot)
    returns = projected.returns
    fee_rate = custody_fee_for(product=bond.product, index=bond.index, amount=amount, name=bond.name)
    flows = [
        CashFlowItem(
            day=flow.day,
            gross=round(amount * flow.gross, 2),
            custody_fee=round(amount * flow.custody_fee, 2),
            iof=round(amount * flow.iof, 2),
            income_tax=round(amount * flow.income_tax, 2),
            net=round(amount * flow.net, 2),
        )
        for flow in returns.flows
    ]
    return result.model_copy(
        update={
            "bond": bond_item(
                figures_for_amount(
                    bond=bond, today=result.today, projection=projection_of(snapshot), amount=amount
                ),
                today=result.today,
            ),
            "business_days": returns.du,
            "calendar_days": returns.dc,
            "income_tax_rate": returns.tax_rate,
            "custody_fee_rate": fee_rate,
            "iof_rate": returns.iof_rate,
            "gross_amount": projected.gross_amount,
            "custody_fee": projected.custody_fee,
            "iof": projected.iof,
            "income_tax": projected.income_tax,
            "net_amount": projected.net_amount,
            "net_gain": None if projected.net_amount is None else round(projected.net_amount - amount, 2),
            "gross_annualized_return": _round(returns.gross_annualized),
            "net_annualized_return": _round(returns.net_annualized),
            "real_annualized_return": _round(returns.real_annualized),
            "projected_inflation": _round(returns.inflation_annualized),
            "meets_min_investment": amount >= bond.min_investment,
            "cash_flows": flows,
            "notes": _projection_notes(bond, amount, projected, fee_rate),
            "assumptions": assumptions_of(snapshot),
        }
    )


def latest_assumptions() -> Assumptions | None:
    return assumptions_of(projection_latest())
