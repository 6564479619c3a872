"""The list filters of GET /bonds/api/ (and of the MCP tools): a FilterSet that parses, normalises and
applies them, and documents them in OpenAPI.

Values outside the accepted lists, and values that do not parse, are ignored, not errors: an odd value
narrows nothing. The normalised form (`BondFilters`) is canonical (sorted, de-duplicated), so equivalent
queries share one cached reply; the list itself is built from it through the FilterSet's methods, order
(`sort`) included, so a list rendered whole and one streamed in pieces are the same list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import F, Q, QuerySet
from django.db.models.expressions import OrderBy
from django.db.models.functions import Lower
from django.utils.datastructures import MultiValueDict

from bonds.filter_fields import (
    AmountField,
    FlagFilter,
    IsoDateField,
    ItemsFilter,
    RatingField,
    ValueFilter,
    stripped_text,
)
from bonds.models import Bond, Index, Issuer, Product
from bonds.ratings import RATING_MIN_VALUES, spellings_at_or_above
from bonds.rendering import JSON_FIELDS

PRODUCTS: tuple[str, ...] = tuple(Product.values)
INDEXES: tuple[str, ...] = tuple(Index.values)
FORMATS = ("json", "csv")
BANK_CODE_MAX_DIGITS = 9
# Federal bonds are the sovereign's whoever sells them: they meet any `rating_min`.
FEDERAL_PRODUCTS = (Product.TD.value, Product.TPF.value)

# The documented, stable order: best net return first (bonds without one last), then name, bank,
# maturity, and the id as the final tie-breaker. A `sort` puts its field first and keeps these after
# it, so ties are broken the same way every time.
TIE_ORDER: tuple[str, ...] = ("name", "bank", "maturity_date", "id")
DEFAULT_ORDER: tuple = (F("net_annualized_return").desc(nulls_last=True), *TIE_ORDER)


def _sortable(name: str) -> bool:
    try:
        field = Bond._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return isinstance(field, models.IntegerField | models.FloatField | models.DateField)


# Every numeric or date field of the JSON Bond can be a `sort`.
SORT_FIELDS: tuple[str, ...] = tuple(name for name in JSON_FIELDS if _sortable(name))
SORT_VALUES: tuple[str, ...] = tuple(v for name in SORT_FIELDS for v in (name, f"-{name}"))


def sort_ordering(sort: str) -> tuple:
    """`sort` (a field, `-` for descending) first, nulls last either way, then the default order."""
    name = sort.removeprefix("-")
    key: OrderBy = F(name).desc(nulls_last=True) if sort.startswith("-") else F(name).asc(nulls_last=True)
    return (key, *DEFAULT_ORDER)


@dataclass(frozen=True)
class BondFilters:
    products: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()
    banks: tuple[int, ...] = ()
    tax_free: bool | None = None
    fgc: bool | None = None
    maturity_from: date | None = None
    maturity_to: date | None = None
    amount: float | None = None  # keeps offers whose min_investment is at most this
    rating_min: str | None = None  # a notch of bonds.ratings.NOTCHES, e.g. "AA"
    sort: str | None = None  # one of SORT_VALUES; None: the default order
    horizon: date | None = None  # figures if redeemed on this day (offers redeemable at the contract rate)

    def as_query(self) -> MultiValueDict:
        """The filters as a query that parses back to them."""
        query = MultiValueDict()
        for name, items in (("product", self.products), ("index", self.indexes), ("bank", self.banks)):
            if items:
                query.setlist(name, [",".join(map(str, items))])
        for name, flag in (("tax_free", self.tax_free), ("fgc", self.fgc)):
            if flag is not None:
                query.setlist(name, [str(int(flag))])
        for name, text in self._scalars():
            if text:
                query.setlist(name, [text])
        return query

    def _scalars(self) -> tuple[tuple[str, str], ...]:
        return (
            ("maturity_from", self.maturity_from.isoformat() if self.maturity_from else ""),
            ("maturity_to", self.maturity_to.isoformat() if self.maturity_to else ""),
            ("amount", f"{self.amount:.8f}".rstrip("0").rstrip(".") if self.amount is not None else ""),
            ("rating_min", f"br{self.rating_min}" if self.rating_min else ""),
            ("sort", self.sort or ""),
            ("horizon", self.horizon.isoformat() if self.horizon else ""),
        )

    def cache_token(self) -> str:
        return "|".join(
            [
                ",".join(self.products),
                ",".join(self.indexes),
                ",".join(map(str, self.banks)),
                "" if self.tax_free is None else str(int(self.tax_free)),
                "" if self.fgc is None else str(int(self.fgc)),
                *(text for _name, text in self._scalars()),
            ]
        )


def _index_item(item: str) -> str:
    # A `+` sent unencoded arrives as a space ("cdi "), which strip() turned into "cdi": a `+` was meant.
    lowered = item.lower()
    return f"{lowered}+" if lowered in {"cdi", "ipca", "selic"} else lowered


def _is_bank_code(item: str) -> bool:
    # ASCII digits only (str.isdigit() also takes "²", which int() refuses) and short enough for the
    # database's integer column; anything else is an odd value, ignored.
    return item.isascii() and item.isdigit() and len(item) <= BANK_CODE_MAX_DIGITS


def products_of(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({p.lower() for p in items if p.lower() in PRODUCTS}))


def indexes_of(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({i for i in map(_index_item, items) if i in INDEXES}))


def banks_of(items: Iterable[str]) -> tuple[int, ...]:
    return tuple(sorted({int(b) for b in items if _is_bank_code(b)}))


class SortField(forms.Field):
    """A sortable field name, `-` before it for descending (a leading `+` or space: ascending)."""

    def to_python(self, value: Any) -> str | None:
        text = stripped_text(value)
        if text is None:
            return None
        text = text.lower().removeprefix("+").strip()
        return text if text in SORT_VALUES else None


def _ignored(what: str) -> str:
    return f"{what} An odd value (outside the list, or one that does not parse) is ignored: no filter."


class BondFilterSet(django_filters.FilterSet):
    """The list filters. Their methods normalise first: a value outside the accepted lists narrows
    nothing (a list of only odd values filters nothing at all)."""

    product = ItemsFilter(method="filter_products", description="Comma-separated: " + ", ".join(PRODUCTS))
    index = ItemsFilter(
        method="filter_indexes",
        description="Comma-separated: " + ", ".join(INDEXES) + " (`+` sent as `%2B`)",
    )
    bank = ItemsFilter(method="filter_banks", description="Comma-separated bank/broker codes")
    tax_free = FlagFilter(
        field_name="tax_free", method="filter_flag", description="1: only tax-exempt; 0: only taxed"
    )
    fgc = FlagFilter(
        field_name="fgc_protection",
        method="filter_flag",
        description="1: only FGC-covered; 0: only not covered",
    )
    maturity_from = ValueFilter(
        field_class=IsoDateField,
        field_name="maturity_date",
        lookup_expr="gte",
        schema={
            "type": "string",
            "format": "date",
            "description": _ignored("Only offers maturing on or after this date (YYYY-MM-DD)."),
        },
    )
    maturity_to = ValueFilter(
        field_class=IsoDateField,
        field_name="maturity_date",
        lookup_expr="lte",
        schema={
            "type": "string",
            "format": "date",
            "description": _ignored("Only offers maturing on or before this date (YYYY-MM-DD)."),
        },
    )
    amount = ValueFilter(
        field_class=AmountField,
        field_name="min_investment",
        lookup_expr="lte",
        schema={
            "type": "number",
            "exclusiveMinimum": 0,
            "description": _ignored(
                "BRL to invest: only offers whose min_investment is at most this (a decimal point, no "
                "thousands separator)."
            ),
        },
    )
    rating_min = ValueFilter(
        field_class=RatingField,
        method="filter_rating_min",
        schema={
            "type": "string",
            "enum": list(RATING_MIN_VALUES),
            "description": _ignored(
                "Only offers rated at least this on the national scale (brAAA > brAA+ > brAA > brAA- > "
                "brA+ > ...; `+` sent as `%2B`; AA(bra), AA.br and AA are read as brAA). Federal bonds "
                "(td, tpf) count as the best; offers rated on the global scale, omitted (-) or unrated "
                "do not meet a minimum."
            ),
        },
    )
    horizon = ValueFilter(
        field_class=IsoDateField,
        method="filter_horizon",
        schema={
            "type": "string",
            "format": "date",
            "description": _ignored(
                "Exit before maturity (YYYY-MM-DD): offers redeemable at the contract rate "
                "(liquidity_kind redemption) show their net and real returns if redeemed that day (income "
                "tax and IOF by the days held); the others their figures at maturity, with "
                "horizon_reachable false. Narrows nothing."
            ),
        },
    )
    sort = ValueFilter(
        field_class=SortField,
        method="filter_sort",
        schema={
            "type": "string",
            "enum": list(SORT_VALUES),
            "description": _ignored(
                "Order by this field, ascending; `-` before it: descending. Offers without a value come "
                "last either way; ties keep the default order (best net_annualized_return first, then "
                "name, bank, maturity_date, id)."
            ),
        },
    )

    def filter_products(self, queryset: QuerySet, name: str, value: tuple[str, ...]) -> QuerySet:
        products = products_of(value)
        return queryset.filter(product__in=products) if products else queryset

    def filter_indexes(self, queryset: QuerySet, name: str, value: tuple[str, ...]) -> QuerySet:
        indexes = indexes_of(value)
        return queryset.filter(index__in=indexes) if indexes else queryset

    def filter_banks(self, queryset: QuerySet, name: str, value: tuple[str, ...]) -> QuerySet:
        banks = banks_of(value)
        return queryset.filter(bank__in=banks) if banks else queryset

    def filter_flag(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        return queryset.filter(**{name: value})

    def filter_rating_min(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        national, bare = spellings_at_or_above(value)
        # A bare notation (`AA`) is national only when it is the rating of a national-scale issuer
        # (how payment_probability reads it too).
        bare_national = Q(
            rating_lower__in=bare, issuer__rating_scale=Issuer.Scale.NATIONAL, issuer__rating=F("rating")
        )
        return queryset.alias(rating_lower=Lower("rating")).filter(
            Q(product__in=FEDERAL_PRODUCTS)
            | Q(issuer__sovereign=True)
            | Q(rating_lower__in=national)
            | bare_national
        )

    def filter_horizon(self, queryset: QuerySet, name: str, value: date) -> QuerySet:
        return queryset  # it changes the figures (bonds.for_amount), not which offers are listed

    def filter_sort(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.order_by(*sort_ordering(value))

    def normalized(self) -> BondFilters:
        """The canonical form of the query (what the reply cache is keyed by)."""
        self.is_valid()  # never false: odd values are ignored, not errors
        data = self.form.cleaned_data
        return BondFilters(
            products=products_of(data["product"]),
            indexes=indexes_of(data["index"]),
            banks=banks_of(data["bank"]),
            tax_free=data["tax_free"],
            fgc=data["fgc"],
            maturity_from=data["maturity_from"],
            maturity_to=data["maturity_to"],
            amount=data["amount"],
            rating_min=data["rating_min"],
            sort=data["sort"],
            horizon=data["horizon"],
        )


FILTER_NAMES: tuple[str, ...] = tuple(BondFilterSet.base_filters)
# What a query without any filter parameter parses to (the empty FilterSet's normalised form).
NO_FILTERS = BondFilters()


def parse_filters(query: Mapping[str, list[str]]) -> BondFilters:
    """Parse a query given as name -> list of raw values (e.g. `dict(request.GET.lists())`)."""
    # Only the filter parameters matter (format, locale, key... do not), so they alone are the memo's key.
    given = tuple((name, tuple(query[name])) for name in FILTER_NAMES if query.get(name))
    return _parsed(given) if given else NO_FILTERS


# Building a FilterSet (deep copies of its filters, a form) costs about as much as serving a cached
# reply (docs/decisions/0007). Parsing is pure, so equal queries are parsed once per process; the memo
# is bounded, odd queries only push out older ones.
@lru_cache(maxsize=512)
def _parsed(given: tuple[tuple[str, tuple[str, ...]], ...]) -> BondFilters:
    data = MultiValueDict({name: list(values) for name, values in given})
    return BondFilterSet(data=data, queryset=Bond.objects.none()).normalized()


def bonds_filtered(queryset: QuerySet[Bond], filters: BondFilters) -> QuerySet[Bond]:
    """`queryset` narrowed by normalised filters, through the FilterSet's methods, and in the `sort`
    order when there is one."""
    return BondFilterSet(data=filters.as_query(), queryset=queryset).qs


def parse_format(query: Mapping[str, list[str]]) -> str:
    values = query.get("format", [])
    value = values[-1].strip().lower() if values else ""
    return value if value in FORMATS else "json"


def parse_locale(query: Mapping[str, list[str]], fmt: str) -> str | None:
    """`pt-BR` (any case, `_` or `-`) with CSV; otherwise no locale."""
    values = query.get("locale", [])
    value = values[-1].strip().replace("_", "-").lower() if values else ""
    return "pt-BR" if fmt == "csv" and value == "pt-br" else None
