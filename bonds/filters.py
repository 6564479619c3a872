"""The list filters of GET /bonds/api/ (and of the MCP tools): a FilterSet that parses, normalises and
applies them, and documents them in OpenAPI.

Values outside the accepted lists are ignored, not errors: an odd value narrows nothing. The normalised form
(`BondFilters`) is canonical (sorted, de-duplicated), so equivalent queries share one cached reply; the
list itself is built from it through the FilterSet's methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django.utils.datastructures import MultiValueDict
from drf_spectacular.utils import extend_schema_field

from bonds.models import Bond, Index, Product

PRODUCTS: tuple[str, ...] = tuple(Product.values)
INDEXES: tuple[str, ...] = tuple(Index.values)
FORMATS = ("json", "csv")
BANK_CODE_MAX_DIGITS = 9


@dataclass(frozen=True)
class BondFilters:
    products: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()
    banks: tuple[int, ...] = ()
    tax_free: bool | None = None
    fgc: bool | None = None
    # Not offered by the REST endpoint; used by the MCP tools.
    maturity_from: date | None = None
    maturity_to: date | None = None

    def as_query(self) -> MultiValueDict:
        """The list filters as a query that parses back to them (the maturity bounds are not part of it)."""
        query = MultiValueDict()
        for name, items in (("product", self.products), ("index", self.indexes), ("bank", self.banks)):
            if items:
                query.setlist(name, [",".join(map(str, items))])
        for name, flag in (("tax_free", self.tax_free), ("fgc", self.fgc)):
            if flag is not None:
                query.setlist(name, [str(int(flag))])
        return query

    def cache_token(self) -> str:
        return "|".join(
            [
                ",".join(self.products),
                ",".join(self.indexes),
                ",".join(map(str, self.banks)),
                "" if self.tax_free is None else str(int(self.tax_free)),
                "" if self.fgc is None else str(int(self.fgc)),
                self.maturity_from.isoformat() if self.maturity_from else "",
                self.maturity_to.isoformat() if self.maturity_to else "",
            ]
        )


def _items(values: Iterable[str]) -> list[str]:
    """Comma-separated lists (form style); repeated parameters are accepted too."""
    return [item.strip() for value in values for item in str(value).split(",") if item.strip()]


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


class ItemsField(forms.Field):
    """Every item of a repeated, comma-separated parameter; never an error."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> tuple[str, ...]:
        return tuple(_items(value or ()))


class FlagField(forms.Field):
    """`1` true, `0` false (the last value, spaces aside); anything else is no choice, never an error."""

    def to_python(self, value: Any) -> bool | None:
        return {"1": True, "0": False}.get(value.strip()) if isinstance(value, str) else None


class ItemsFilter(django_filters.Filter):
    """A comma-separated list of codes, documented as the string it is."""

    field_class = ItemsField

    def __init__(self, *, description: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        extend_schema_field({"type": "string", "description": description})(self)


class FlagFilter(django_filters.Filter):
    field_class = FlagField

    def __init__(self, *, description: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        extend_schema_field({"type": "integer", "enum": [0, 1], "description": description})(self)


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
        )


FILTER_NAMES: tuple[str, ...] = tuple(BondFilterSet.base_filters)
# What a query without any filter parameter parses to (the empty FilterSet's normalised form).
NO_FILTERS = BondFilters()


def parse_filters(query: Mapping[str, list[str]]) -> BondFilters:
    """Parse a query given as name -> list of raw values (e.g. `dict(request.GET.lists())`)."""
    # Only the filter parameters matter (format, locale, key... do not), so they alone are the memo's key.
    given = tuple((name, tuple(query[name])) for name in FILTER_NAMES if query.get(name))
    return _parsed(given) if given else NO_FILTERS


# Building a FilterSet (deep copies of its filters, a form) costs ~0.3 ms, about as much as serving a
# cached reply: a keyless preview was 0.4 x a bare view at 20,000 offers. Parsing is pure, so equal
# queries are parsed once per process; the memo is bounded, odd queries only push out older ones.
@lru_cache(maxsize=512)
def _parsed(given: tuple[tuple[str, tuple[str, ...]], ...]) -> BondFilters:
    data = MultiValueDict({name: list(values) for name, values in given})
    return BondFilterSet(data=data, queryset=Bond.objects.none()).normalized()


def bonds_filtered(queryset: QuerySet[Bond], filters: BondFilters) -> QuerySet[Bond]:
    """`queryset` narrowed by normalised filters, through the FilterSet's methods (the MCP-only
    maturity bounds are the caller's)."""
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
