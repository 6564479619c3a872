"""bonds.filters.parse_filters: parsed once per distinct set of filter parameters (the FilterSet is
costly next to a cached reply), with the same result as the FilterSet itself."""

from __future__ import annotations

import pytest
from django.utils.datastructures import MultiValueDict

from bonds.filters import BondFilters, BondFilterSet, parse_filters
from bonds.models import Bond

QUERIES = [
    {},
    {"format": ["csv"], "locale": ["pt-BR"], "key": ["secret"], "bom": ["1"]},
    {"product": ["LCI,cdb", "x"], "index": ["cdi "], "bank": ["1,77,1e3"], "tax_free": ["1", " 0 "]},
    {"fgc": ["yes"], "product": [""]},
]


def filterset_normalised(query: dict[str, list[str]]) -> BondFilters:
    data = MultiValueDict({name: values for name, values in query.items() if values})
    return BondFilterSet(data=data, queryset=Bond.objects.none()).normalized()


@pytest.mark.parametrize("query", QUERIES)
def test_parsing_gives_what_the_filterset_normalises_to(query) -> None:
    assert parse_filters(query) == filterset_normalised(query)


def test_a_query_without_filter_parameters_has_no_filters() -> None:
    assert parse_filters({"format": ["csv"], "key": ["k"]}) == BondFilters()


def test_parameters_that_are_not_filters_do_not_change_the_parse() -> None:
    plain = parse_filters({"product": ["cdb"]})
    assert parse_filters({"product": ["cdb"], "format": ["csv"], "key": ["k"]}) is plain
