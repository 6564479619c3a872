"""The work behind the MCP tool `project_bond` (and GET /bonds/api/{id}/projection, which answers the
same): what an amount invested now in one bond becomes, step by step, with its caveats."""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from bonds import finance, statuses
from bonds.figures import figures_for_amount
from bonds.mcp.reads import assumptions_of, bond_item, rounded
from bonds.mcp.schemas import BondProjectionResult, CashFlowItem
from bonds.models import Bond
from bonds.projections import (
    bond_net_amount_at_maturity,
    custody_fee_for,
    projection_latest,
    projection_of,
)


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
    bond: Bond,
    amount: float,
    projected: finance.AmountProjection,
    fee_rate: float,
    horizon: date | None = None,
    reachable: bool | None = None,
) -> list[str]:
    """The caveats of a projection, in plain English: when the money moves, then what covers it."""
    return _timing_notes(bond, amount, projected, horizon, reachable) + _terms_notes(
        bond, amount, projected, fee_rate
    )


def _timing_notes(
    bond: Bond,
    amount: float,
    projected: finance.AmountProjection,
    horizon: date | None,
    reachable: bool | None,
) -> list[str]:
    """Horizon, amount and dates: what the figures run to."""
    returns, notes = projected.returns, []
    if horizon is not None and reachable and horizon < bond.maturity_date:
        notes.append(
            f"Redeemed on {horizon.isoformat()} at the contract rate: amounts and returns run to then, with "
            "income tax and IOF by the days held."
        )
    elif horizon is not None and not reachable:
        notes.append(
            f"The money cannot be back by {horizon.isoformat()} at the contract rate (no redemption before "
            "maturity, a grace period, a sale at the market price, or coupons): the figures run to maturity."
        )
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
    return notes


def _terms_notes(
    bond: Bond, amount: float, projected: finance.AmountProjection, fee_rate: float
) -> list[str]:
    """The guarantee, liquidity, taxes and fees the figures assume."""
    returns, notes = projected.returns, []
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


def bond_projection(
    *, status: str, bond: Bond, amount: float, horizon: date | None = None
) -> BondProjectionResult:
    """What `amount` invested today in `bond` becomes by maturity, step by step; with a `horizon` it
    can reach at the contract rate (bonds.figures.exit_at), if redeemed that day."""
    result = _empty_projection(status, amount).model_copy(update={"horizon": horizon})
    if status not in statuses.WITH_BONDS:
        return result
    snapshot = projection_latest()
    item = figures_for_amount(
        bond=bond, today=result.today, projection=projection_of(snapshot), amount=amount, horizon=horizon
    )
    early = horizon is not None and item.horizon_reachable and horizon < bond.maturity_date
    projected = bond_net_amount_at_maturity(
        bond=bond, amount=amount, snapshot=snapshot, until=horizon if early else None
    )
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
            "bond": bond_item(item, today=result.today),
            "horizon_reachable": item.horizon_reachable,
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
            "gross_annualized_return": rounded(returns.gross_annualized),
            "net_annualized_return": rounded(returns.net_annualized),
            "real_annualized_return": rounded(returns.real_annualized),
            "projected_inflation": rounded(returns.inflation_annualized),
            "meets_min_investment": amount >= bond.min_investment,
            "cash_flows": flows,
            "notes": _projection_notes(bond, amount, projected, fee_rate, horizon, item.horizon_reachable),
            "assumptions": assumptions_of(snapshot),
        }
    )
