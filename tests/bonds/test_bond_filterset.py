"""The bond filters (bonds.filters.BondFilterSet) through GET /bonds/api/: values outside the accepted
lists are ignored by the filter methods, and every spelling of one query shares one cached reply."""

from __future__ import annotations

import pytest

from tests.bonds.test_list_api import bearer, bonds, get, names  # noqa: F401  (bonds: the fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("bonds")]
EVERY_BOND = [f"Bond 0{n}" for n in (4, 6, 2, 1, 3, 5, 8, 7)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("product=cdb,nope,%C2%B2", ["Bond 01"]),
        ("index=pre,cdi%3F", ["Bond 04"]),
        ("bank=341,-1,1e3,99999999999", ["Bond 04"]),
        ("product=LCI&product=x", ["Bond 02"]),
    ],
)
def test_known_values_narrow_the_list_and_odd_ones_beside_them_are_ignored(
    api_client,
    key,
    query,
    expected,
) -> None:
    assert names(get(api_client, query, **bearer(key))) == expected


@pytest.mark.parametrize(
    "query",
    ["product=nope", "index=", "bank=abc", "tax_free=2", "fgc=yes", "tax_free=&fgc=%00", "bank=%D9%A3"],
)
def test_a_filter_of_only_odd_values_narrows_nothing(api_client, key, query) -> None:
    response = get(api_client, query, **bearer(key))
    assert response.status_code == 200 and response.json()["response"]["status"] == "ok"
    assert names(response) == EVERY_BOND


def test_the_last_flag_value_counts_and_false_is_a_filter(api_client, key) -> None:
    taxed = [name for name in EVERY_BOND if name not in {"Bond 02", "Bond 03", "Bond 06"}]
    assert names(get(api_client, "tax_free=1&tax_free=0", **bearer(key))) == taxed
    assert names(get(api_client, "tax_free=%200%20", **bearer(key))) == taxed


def test_every_spelling_of_one_query_shares_one_cached_reply(
    api_client,
    key,
    django_assert_num_queries,
) -> None:
    first = get(api_client, "product=LCI,cdb&index=cdi*,ipca%2B&bank=77,1&tax_free=1", **bearer(key))
    assert names(first) == ["Bond 02"]
    spellings = [
        "tax_free=1&bank=1,77,77&index=IPCA%2B&index=cdi*&product=cdb&product=lci",
        "product=cdb,,lci,nope&index=ipca+,cdi*&bank=001,77,%C2%B2&tax_free=0&tax_free=%201",
    ]
    for query in spellings:
        with django_assert_num_queries(0):  # the key, the status and the reply all come from the cache
            again = get(api_client, query, **bearer(key))
        # The ignored `nope` is named in `warnings`, spliced in outside the cached reply (decision 0018).
        reply = again.json()
        warnings = reply.pop("warnings", [])
        assert reply == first.json()
        assert bool(warnings) == ("nope" in query)
