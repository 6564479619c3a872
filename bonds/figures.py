"""A bond's computed figures (net and real returns, payment probabilities, the tax-equivalent rate),
recomputed when offers, projections or an issuer's rating change."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import transaction
from django.utils import timezone

from bonds import finance
from bonds.models import Bond, Issuer, Product, ProjectionSnapshot
from bonds.projections import custody_fee_for, projection_latest, projection_of

# Federal bonds are the sovereign's whoever sells them: Tesouro Direto and federal bonds bought from a
# broker (`tpf`) have the domestic risk-free payment probability, never the broker's rating.
SOVEREIGN_PRODUCTS = frozenset({Product.TD, Product.TPF})


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# What bond_figures computes, in its order: the Bond fields the recompute writes.
FIGURE_FIELDS = (
    "net_annualized_return",
    "real_annualized_return",
    "payment_probability",
    "net_return_cdi_percent",
    "covered_payment_probability",
    "fgc_covered_share",
    "payment_schedule",
    "first_payment_date",
)


def bond_probability(*, bond: Bond, years: float) -> float | None:
    """The issuer's payment probability at maturity; federal bonds the sovereign's (1.0)."""
    issuer = bond.issuer
    sovereign = bond.product in SOVEREIGN_PRODUCTS or (issuer is not None and issuer.sovereign)
    # The issuer's rating (copied to the bond) is read on the issuer's scale; a feed's own rating by
    # its notation.
    national = (
        issuer is not None and bond.rating == issuer.rating and issuer.rating_scale == Issuer.Scale.NATIONAL
    )
    return finance.payment_probability(bond.rating, years, sovereign=sovereign, national=national)


def bond_figures(
    *, bond: Bond, today: date, projection: finance.Projection | None, amount: float | None = None
) -> tuple:
    """The FIGURE_FIELDS of a bond ordered today for `amount` (default: its minimum investment), as
    of the order's settlement date (today when it is a business day, else the next one): net, real,
    payment probability, tax-equivalent rate, the probability of being paid counting the FGC on what
    is owed, the share of what is owed at maturity the FGC covers, how it pays (`payment_schedule`)
    and the day of its first payment after settlement."""
    amount = bond.min_investment if amount is None else amount
    start = finance.settlement_date(today)
    terms = finance.coupon_terms(name=bond.name, index=bond.index, coupon_months=bond.coupon_months)
    result = finance.offer_returns(
        index=bond.index,
        rate=bond.rate,
        start=start,
        maturity=bond.maturity_date,
        projection=projection,
        tax_free=bond.tax_free,
        custody_fee=custody_fee_for(product=bond.product, index=bond.index, amount=amount, name=bond.name),
        coupon=terms,
    )
    years = max(0, (bond.maturity_date - start).days) / 365.25
    probability = bond_probability(bond=bond, years=years)
    # What is owed grows at the gross rate (principal plus interest, before fees and taxes).
    growth = result.gross_factor or 1.0
    covered = finance.covered_payment_probability(
        probability,
        fgc_protection=bond.fgc_protection,
        amount=amount,
        growth=growth,
        years=years,
        survival=lambda t: bond_probability(bond=bond, years=t),
    )
    share = finance.fgc_covered_share(amount=amount, growth=growth, fgc_protection=bond.fgc_protection)
    days = [flow.day for flow in result.flows] or [result.payment_date]
    matured = result.du <= 0  # nothing left to pay: no schedule, no payment
    return (
        _round(result.net_annualized),
        _round(result.real_annualized),
        _round(probability),
        _round(result.cdi_equivalent),
        _round(covered),
        _round(share),
        "" if matured else finance.payment_schedule(terms=terms, product=bond.product),
        None if matured else days[0],
    )


def exit_at(*, bond: Bond, today: date, horizon: date) -> bool:
    """Whether the money can be back by `horizon` at the contract rate: the bond matures by then, or it
    is redeemable at the contract rate (`liquidity_kind` redemption, a bullet) after its grace period.
    A sale at the market price is not counted: its price on that day is not projected."""
    start = finance.settlement_date(today)
    if bond.maturity_date <= horizon:
        return True
    grace = timedelta(days=bond.grace_period_days or 0)
    bullet = finance.coupon_terms(name=bond.name, index=bond.index, coupon_months=bond.coupon_months) is None
    return bond.liquidity_kind == "redemption" and bullet and horizon > start and horizon >= start + grace


def figures_for_amount(
    *,
    bond: Bond,
    today: date,
    projection: finance.Projection | None,
    amount: float,
    horizon: date | None = None,
) -> Bond:
    """`bond` (in memory, not saved) with its FIGURE_FIELDS computed for `amount`: what the listing with
    `amount=` shows and what project_bond says for that amount. With a `horizon`, `horizon_reachable`
    says whether the money can be back by then at the contract rate, and an offer redeemable before
    maturity shows its net and real returns (and tax-equivalent rate) if redeemed that day, income tax
    and IOF by the days held; the others keep their figures at maturity."""
    figures = bond_figures(bond=bond, today=today, projection=projection, amount=amount)
    for name, value in zip(FIGURE_FIELDS, figures, strict=True):
        setattr(bond, name, value)
    bond.horizon_reachable = None if horizon is None else exit_at(bond=bond, today=today, horizon=horizon)
    if horizon is not None and bond.horizon_reachable and horizon < bond.maturity_date:
        early = finance.offer_returns(
            index=bond.index,
            rate=bond.rate,
            start=finance.settlement_date(today),
            maturity=horizon,
            projection=projection,
            tax_free=bond.tax_free,
            custody_fee=custody_fee_for(
                product=bond.product, index=bond.index, amount=amount, name=bond.name
            ),
        )
        bond.net_annualized_return = _round(early.net_annualized)
        bond.real_annualized_return = _round(early.real_annualized)
        bond.net_return_cdi_percent = _round(early.cdi_equivalent)
    return bond


@transaction.atomic
def bond_returns_recompute(
    *, today: date | None = None, snapshot: ProjectionSnapshot | None = None, pks: list[int] | None = None
) -> int:
    """Recompute every active bond's (or only `pks`') returns and payment probabilities; write only
    what changed. Returns the number of bonds whose figures changed."""
    today = today or timezone.localdate()
    projection = projection_of(snapshot if snapshot is not None else projection_latest())
    now = timezone.now()
    changed = []
    bonds = Bond.objects.filter(is_active=True).select_related("issuer")
    for bond in bonds if pks is None else bonds.filter(pk__in=pks):
        figures = bond_figures(bond=bond, today=today, projection=projection)
        if figures == tuple(getattr(bond, name) for name in FIGURE_FIELDS):
            continue
        for name, value in zip(FIGURE_FIELDS, figures, strict=True):
            setattr(bond, name, value)
        bond.returns_computed_on, bond.updated_at = today, now
        changed.append(bond)
    Bond.objects.bulk_update(changed, [*FIGURE_FIELDS, "returns_computed_on", "updated_at"], batch_size=500)
    return len(changed)
