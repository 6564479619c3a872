"""The bond list names the `product` and `sort` values it ignored in a `warnings` list of its JSON reply;
the values are still ignored, as the contract says (issue 45)."""

from __future__ import annotations

import json

import pytest

from bonds.filter_warnings import filter_warnings, with_warnings


def test_unknown_products_and_sort_are_named_one_sentence_each() -> None:
    warnings = filter_warnings({"product": ["cdb,xyz", "LCI"], "sort": ["-bogus"]})
    assert len(warnings) == 2
    assert warnings[0].startswith("product: 'xyz' is not one of cdb, lci")
    assert warnings[1].startswith("sort: '-bogus' is not a field to sort by")


def test_documented_values_give_no_warning() -> None:
    assert filter_warnings({"product": ["cdb", "LCA,td"], "sort": ["+maturity_date"], "fgc": ["x"]}) == []
    assert filter_warnings({"sort": ["-net_annualized_return"]}) == []


def test_the_warnings_become_the_replys_first_member() -> None:
    body = with_warnings(b'{"response": {"status": "ok"}, "bonds": []}', ["product: 'x' ..."])
    assert json.loads(body) == {"warnings": ["product: 'x' ..."], "response": {"status": "ok"}, "bonds": []}


@pytest.mark.django_db
def test_the_api_keeps_the_whole_list_and_says_what_it_ignored(client) -> None:
    from io import StringIO

    from bonds import demo

    demo.load(stdout=StringIO(), count=8)
    every = client.get("/bonds/api/").json()
    typo = client.get("/bonds/api/?product=xyz&sort=-bogus").json()
    assert [bond["id"] for bond in typo["bonds"]] == [bond["id"] for bond in every["bonds"]]
    assert typo["response"]["status"] == every["response"]["status"]
    assert [w.split(":")[0] for w in typo["warnings"]] == ["product", "sort"]
    assert "warnings" not in every and "warnings" not in client.get("/bonds/api/?product=cdb").json()
    csv = client.get("/bonds/api/?product=xyz&format=csv")
    assert b"warnings" not in csv.content


@pytest.mark.django_db
def test_a_streamed_full_list_carries_the_warnings_too(client, make_account, settings) -> None:
    from io import StringIO

    from accounts.services import api_key_create
    from bonds import demo

    settings.BONDS_STREAM_ROWS = 2  # a list longer than this is streamed on a cache miss
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    demo.load(stdout=StringIO(), count=8)
    _, key = api_key_create(account=make_account(), role="viewer")
    reply = client.get("/bonds/api/?sort=nope", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert reply.streaming
    body = json.loads(b"".join(reply.streaming_content))
    assert body["response"]["status"] == "ok" and len(body["bonds"]) > 2
    assert body["warnings"][0].startswith("sort: 'nope'")
