"""CSV safety (formula neutralising, BOM) and matured offers, which are never listed."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from accounts.models import ApiKey
from bonds.filters import BondFilters
from bonds.mcp import reads
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers import feeds
from bonds.providers.base import Offer
from bonds.rendering import ADDED_FIELDS, BOND_FIELDS, render_csv
from bonds.replies import bond_list_reply
from tests.bonds.rows import with_ids

URL = "/bonds/api/"
FORMULA = '=HYPERLINK("http://evil.example","Clique")'
ROW = (FORMULA, 77, "+Banco Inter", "cdb", "cdi*", 1.1, True, False, False, 1000.0, date(2028, 11, 23), True,
       "@brAA", 0.95, -0.0123, -0.5, None, None, None, None, None)  # fmt: skip


def test_text_cells_starting_with_formula_characters_are_neutralised_and_numbers_are_not():
    for text in (FORMULA, "+1", "-1+1", "@SUM(A1)", "\tx", "\rx"):
        row = (text, *ROW[1:])
        cells = next(
            csv.reader(
                io.StringIO(render_csv(rows=with_ids([row]), locale=None).decode().split("\r\n", 1)[1])
            )
        )
        assert cells[0] == "'" + text
    cells = list(csv.reader(io.StringIO(render_csv(rows=with_ids([ROW]), locale=None).decode())))[1]
    assert (cells[0], cells[2], cells[12]) == ("'" + FORMULA, "'+Banco Inter", "'@brAA")
    assert (cells[14], cells[15]) == ("-0.0123", "-0.5")  # negative numbers are numbers


def test_the_omitted_rating_dash_is_not_a_formula_and_stays_as_is():
    row = (*ROW[:12], "-", *ROW[13:])
    cells = list(csv.reader(io.StringIO(render_csv(rows=with_ids([row]), locale=None).decode())))[1]
    assert cells[12] == "-"


@pytest.mark.parametrize("locale", [None, "pt-BR"])
def test_a_neutralised_csv_reads_back_as_the_original_text(locale):
    offers = feeds.parse(render_csv(rows=with_ids([ROW]), locale=locale, bom=True), fmt="auto", what="feed")
    assert (offers[0].name, offers[0].bank_name, offers[0].rating) == (FORMULA, "+Banco Inter", "@brAA")


def test_the_csv_starts_with_exactly_the_seed_columns_then_the_added_ones():
    header = render_csv(rows=with_ids([ROW]), locale=None).decode().split("\r\n", 1)[0]
    assert header.split(",") == [*BOND_FIELDS, *ADDED_FIELDS]


@pytest.fixture
def listed(db) -> None:
    offers = [
        Offer(natural_key="a", name="CDB Ação Ótima", bank=77, bank_name="Banco Inter", product="cdb",
              index="cdi*", rate=1.1, maturity_date=date(2029, 1, 1), rating="brAA", rating_given=True),
    ]  # fmt: skip
    bond_offers_upsert(source="test", offers=offers)


@pytest.mark.parametrize(
    ("query", "bom"),
    [
        ("format=csv", False),
        ("format=csv&bom=1", True),
        ("format=csv&locale=pt-BR", True),
        ("format=csv&locale=pt-BR&bom=0", False),
        ("format=json&bom=1", False),
    ],
)
def test_bom_is_sent_when_asked_and_by_default_in_pt_br(api_client, listed, query, bom):
    body = api_client.get(f"{URL}?{query}").content
    assert body.startswith(b"\xef\xbb\xbf") is bom
    assert "CDB Ação Ótima" in body.decode("utf-8-sig")


def _today_in(zone: str) -> date:
    return datetime.now(ZoneInfo(zone)).date()


def test_a_matured_offer_is_never_listed_whatever_the_refresh_state(api_client, make_key, db, settings):
    # The western-most and eastern-most time zones are a day or two apart: switching between them
    # moves "today" past the bond's maturity with no refresh and no data change at all.
    settings.TIME_ZONE = "Etc/GMT+12"
    maturity = _today_in("Pacific/Kiritimati")
    assert maturity > _today_in("Etc/GMT+12")
    offers = [
        Offer(natural_key=key, name=f"Bond {key}", bank=77, bank_name="Banco Inter", product="cdb",
              index="cdi*", rate=1.0, maturity_date=day)
        for key, day in (("today", maturity), ("later", maturity + timedelta(days=400)))
    ]  # fmt: skip
    bond_offers_upsert(source="stale", offers=offers)
    key = make_key(ApiKey.Role.VIEWER)
    assert len(api_client.get(URL).json()["bonds"]) == 2  # and the reply is now cached
    settings.TIME_ZONE = "Pacific/Kiritimati"
    assert Bond.objects.filter(is_active=True).count() == 2  # the source has not refreshed
    assert [b["name"] for b in api_client.get(URL).json()["bonds"]] == ["Bond later"]
    csv_body = api_client.get(f"{URL}?format=csv&key={key}").content.decode()
    assert "Bond today" not in csv_body and "Bond later" in csv_body
    reply = bond_list_reply(status="preview", filters=BondFilters(), fmt="json", locale=None)
    assert b"Bond today" not in reply.body
    with pytest.raises(reads.BondNotFound):
        reads.active_bond(Bond.objects.get(natural_key="today").pk)


def test_the_openapi_bond_schema_has_the_new_json_fields(client, db):
    schema = client.get("/schema/?format=json").json()
    bond = schema["components"]["schemas"]["Bond"]
    for name in ("liquidity_days", "grace_period_days", "net_return_cdi_percent"):
        assert "null" in bond["properties"][name]["type"] and name in bond["required"]
    listing = next(
        op for path in schema["paths"].values() for op in path.values() if op["operationId"] == "listBonds"
    )
    assert "bom" in {parameter["name"] for parameter in listing["parameters"]}
