"""The list with every figure computed for the amount asked (`amount=`: custody fee by amount and the
FGC on what that amount grows to) and for an exit before maturity (`horizon=`). Without either, the
stored figures (for each offer's minimum investment, written by the refresh) are listed as they are;
with them, the rows whose figures depend on the query are recomputed in the request, then the list is
ordered in Python exactly as the database orders the stored figures (the reply is cached per query, so
this runs once per distinct amount and horizon)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from django.db.models import QuerySet

from bonds.figures import figures_for_amount
from bonds.filters import TIE_ORDER, BondFilters
from bonds.models import Bond, Product
from bonds.projections import projection_latest, projection_of

# Only these figures change with the amount: the custody fee (Tesouro Direto) and the FGC (covered
# offers). Every other offer's figures are the same for any amount, so the stored ones are kept.
AMOUNT_PRODUCTS = frozenset({Product.TD})


def depends_on_amount(bond: Bond) -> bool:
    return bond.product in AMOUNT_PRODUCTS or bond.fgc_protection


def _key(name: str, descending: bool) -> Callable[[Bond], tuple]:
    """A sort key for a numeric or date field, nulls last either way (as `nulls_last=True`)."""

    def key(bond: Bond) -> tuple:
        value = getattr(bond, name)
        if value is None:
            return (1, 0)
        number = value.toordinal() if isinstance(value, date) else value
        return (0, -number if descending else number)

    return key


def ordered(bonds: list[Bond], sort: str | None) -> list[Bond]:
    """`bonds` (in the tie order: name, bank, maturity, id) in the filters' order: the best net return
    first, then, with a `sort`, that field first (stable sorts keep the ties' order)."""
    bonds.sort(key=_key("net_annualized_return", descending=True))
    if sort:
        bonds.sort(key=_key(sort.removeprefix("-"), descending=sort.startswith("-")))
    return bonds


def computed_in_request(filters: BondFilters) -> bool:
    """Whether the list's figures depend on the query (an amount or a horizon), not only on the data."""
    return filters.amount is not None or filters.horizon is not None


def bonds_for_amount(*, queryset: QuerySet[Bond], filters: BondFilters, today: date) -> list[Bond]:
    """The filtered bonds with their figures for `filters.amount` (else each one's minimum) and, with
    `filters.horizon`, if redeemed then (bonds.figures.figures_for_amount), in the list's order."""
    projection = projection_of(projection_latest())
    bonds = list(queryset.select_related("issuer").order_by(*TIE_ORDER))
    horizon = filters.horizon
    for bond in bonds:
        bond.horizon_reachable = None
        if horizon is not None or depends_on_amount(bond):
            amount = bond.min_investment if filters.amount is None else filters.amount
            figures_for_amount(bond=bond, today=today, projection=projection, amount=amount, horizon=horizon)
    return ordered(bonds, filters.sort)
