"""Each provider against a local server speaking the real format (no internet)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bonds.providers import feeds, focus, sgs, tesouro
from bonds.providers.base import ProviderError
from bonds.rendering import render_csv, render_json
from tests.bonds.rows import with_ids

from .conftest import SGS_SERIES, fixture_bytes


def test_tesouro_reads_only_the_latest_data_base_and_bonds_on_sale(fake_source):
    url = fake_source.route("/t.csv", fixture_bytes("tesouro.csv"), content_type="text/csv")
    offers = {offer.name: offer for offer in tesouro.fetch(url=url, timeout=5)}
    assert sorted(offers) == [
        "Tesouro Educa+ 2027",
        "Tesouro IPCA+ 2032",
        "Tesouro IPCA+ com Juros Semestrais 2040",
        "Tesouro Prefixado 2029",
        "Tesouro Prefixado com Juros Semestrais 2029",
        "Tesouro Renda+ Aposentadoria Extra 2035",
        "Tesouro Selic 2031",
    ]
    selic = offers["Tesouro Selic 2031"]
    assert (selic.index, selic.rate, selic.product, selic.bank) == ("selic+", pytest.approx(0.0007), "td", 0)
    assert selic.maturity_date == date(2031, 3, 1)
    assert selic.min_investment == pytest.approx(196.48)  # 1% of the unit price, rounded up
    ipca = offers["Tesouro IPCA+ 2032"]
    assert (ipca.index, ipca.rate, ipca.min_investment) == (
        "ipca+",
        pytest.approx(0.0809),
        pytest.approx(30.0),
    )
    assert offers["Tesouro Prefixado 2029"].index == "pre"
    assert offers["Tesouro Renda+ Aposentadoria Extra 2035"].maturity_date == date(2054, 12, 15)


def test_tesouro_refuses_an_unexpected_header(fake_source):
    url = fake_source.route("/t.csv", "a;b;c\n1;2;3\n", content_type="text/csv")
    with pytest.raises(ProviderError, match="unexpected header"):
        tesouro.fetch(url=url, timeout=5)


def test_a_502_html_page_becomes_a_clear_error(fake_source):
    url = fake_source.route("/t.csv", "<html>Bad Gateway</html>", status=502, content_type="text/html")
    with pytest.raises(ProviderError, match=r"HTTP 502 with an HTML error page"):
        tesouro.fetch(url=url, timeout=5)


def test_a_slow_source_times_out_with_a_clear_error(fake_source):
    url = fake_source.route("/slow.csv", "x", delay=2.0)
    with pytest.raises(ProviderError, match=r"no answer within 0.3 s"):
        tesouro.fetch(url=url, timeout=0.3)


def test_an_unreachable_source_is_a_clear_error():
    with pytest.raises(ProviderError, match="could not connect"):
        sgs.fetch(base_url="http://127.0.0.1:9", timeout=2)


def test_focus_takes_the_latest_base_zero_median_per_year(fake_source):
    fake_source.route("/odata/ExpectativasMercadoAnuais", fixture_bytes("focus_anuais.json"))
    medians = focus.fetch(base_url=fake_source.base + "/odata", timeout=5, today=date(2026, 11, 23))
    assert medians.survey_date == date(2026, 11, 13)
    assert medians.selic_by_year == {2026: 14.0, 2027: 12.25, 2028: 10.5}  # not 12.50 from 11-06
    assert medians.ipca_by_year == {2026: 4.46, 2027: 4.0, 2028: 3.75}  # not the baseCalculo 1 row
    query = fake_source.requests[0]
    assert "$filter=" in query and "$format=json" in query
    assert "+" not in query.split("?", 1)[1] and "%20eq%20" in query and "Data%20ge%20'2026-10-09'" in query


def test_focus_selic_per_meeting_takes_the_latest_survey_with_base_zero(fake_source):
    fake_source.route("/odata/ExpectativasMercadoSelic", fixture_bytes("focus_selic.json"))
    meetings = focus.fetch_meetings(base_url=fake_source.base + "/odata", timeout=5, today=date(2026, 11, 23))
    assert meetings.survey_date == date(2026, 11, 13)
    # R8/2026 at 14.00 from the 11-13 survey (not 14.25 from 11-06), in meeting order.
    assert meetings.selic_by_meeting == {"R8/2026": 14.0, "R1/2027": 13.5, "R2/2027": 13.0}
    path, query = fake_source.requests[0].split("?", 1)
    assert path == "/odata/ExpectativasMercadoSelic" and "+" not in query
    assert "Indicador%20eq%20'Selic'%20and%20baseCalculo%20eq%200%20and%20Data%20ge%20'2026-10-09'" in query
    assert "$select=Indicador,Data,Reuniao,Mediana,baseCalculo" in query


def test_focus_selic_per_meeting_without_rows_is_an_error(fake_source):
    fake_source.route(
        "/odata/ExpectativasMercadoSelic", '{"value": [{"Indicador": "Selic", "Reuniao": "x"}]}'
    )
    with pytest.raises(ProviderError, match="no Selic median per Copom meeting"):
        focus.fetch_meetings(base_url=fake_source.base + "/odata", timeout=5, today=date(2026, 11, 23))


def test_sgs_gap_between_selic_target_and_cdi_is_taken_on_the_latest_common_day(fake_source):
    fake_source.route(
        "/sgs/bcdata.sgs.432/dados/ultimos/5",
        '[{"data":"17/11/2026","valor":"14.25"},{"data":"18/11/2026","valor":"14.25"},'
        '{"data":"19/11/2026","valor":"14.25"}]',
    )
    fake_source.route(
        "/sgs/bcdata.sgs.4389/dados/ultimos/5",
        '[{"data":"17/11/2026","valor":"14.15"},{"data":"18/11/2026","valor":"14.13"}]',
    )
    fake_source.route("/sgs/bcdata.sgs.13522/dados/ultimos/5", SGS_SERIES[13522])
    rates = sgs.fetch(base_url=fake_source.base + "/sgs", timeout=5)
    assert rates.cdi_gap == pytest.approx(0.12)  # 18/11: the last day both series have


def test_focus_without_medians_is_an_error(fake_source):
    fake_source.route("/odata/ExpectativasMercadoAnuais", '{"value": []}')
    with pytest.raises(ProviderError, match="no Selic or IPCA"):
        focus.fetch(base_url=fake_source.base + "/odata", timeout=5, today=date(2026, 11, 23))


def test_sgs_reads_the_last_value_of_each_series(fake_source):
    for code, body in SGS_SERIES.items():
        fake_source.route(f"/sgs/bcdata.sgs.{code}/dados/ultimos/5", body)
    rates = sgs.fetch(base_url=fake_source.base + "/sgs", timeout=5)
    assert (rates.selic_target, rates.cdi, rates.ipca_12m) == (14.25, 14.15, 4.68)
    assert all("formato=json" in request for request in fake_source.requests)


def test_sgs_non_json_answer_is_an_error(fake_source):
    fake_source.route("/sgs/bcdata.sgs.432/dados/ultimos/5", "<html>oops</html>", content_type="text/html")
    with pytest.raises(ProviderError, match="not JSON"):
        sgs.fetch(base_url=fake_source.base + "/sgs", timeout=5)


ROWS = [
    ("CDB Banco X 110% CDI", 77, "Banco Inter", "cdb", "cdi*", 1.1, True, False, False, 1000.0,
     date(2028, 11, 23), True, "brAA", 0.95, 0.1418, 0.0926, 0, None, 1.1, 0.99995, "redemption"),
    ("LCA Y; especial", 1, "Banco do Brasil", "lca", "ipca+", 0.065, True, True, False, 500.5,
     date(2029, 1, 2), False, None, None, None, None, None, 365, None, 0.999, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (render_json(status="ok", description="x", rows=with_ids(ROWS)), "application/json"),
        (render_csv(rows=with_ids(ROWS), locale=None), "text/csv"),
        (render_csv(rows=with_ids(ROWS), locale="pt-BR"), "text/csv"),
        (render_csv(rows=with_ids(ROWS), locale="pt-BR", bom=True), "text/csv"),
    ],
    ids=["json", "csv", "csv-pt-BR", "csv-pt-BR-with-BOM"],
)
def test_a_broker_feed_reads_pontes_own_output(fake_source, body, content_type):
    url = fake_source.route("/feed", body, content_type=content_type)
    offers = feeds.fetch(url=url, fmt="auto", timeout=5, what="feed")
    first, second = offers
    assert (first.name, first.bank, first.product, first.index, first.rate) == (
        "CDB Banco X 110% CDI", 77, "cdb", "cdi*", 1.1,
    )  # fmt: skip
    assert (first.fgc_protection, first.tax_free, first.early_withdrawal, first.rating) == (
        True,
        False,
        True,
        "brAA",
    )
    assert (second.name, second.tax_free, second.min_investment, second.rating) == (
        "LCA Y; especial",
        True,
        500.5,
        None,
    )
    assert second.maturity_date == date(2029, 1, 2)


def test_a_feed_answering_a_non_ok_status_is_refused(fake_source):
    body = render_json(status="unauthorized", description="bad key", rows=[])
    url = fake_source.route("/feed", body)
    with pytest.raises(ProviderError, match="status 'unauthorized'"):
        feeds.fetch(url=url, fmt="json", timeout=5, what="feed")
    csv_url = fake_source.route(
        "/feed.csv", render_csv(rows=[], locale=None), headers={"X-Ponte-Status": "rate_limited"}
    )
    with pytest.raises(ProviderError, match="rate_limited"):
        feeds.fetch(url=csv_url, fmt="csv", timeout=5, what="feed")


BASE = {"name": "x", "bank": 1, "product": "cdb", "index": "pre", "rate": 0.1, "maturity_date": "2030-01-01"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"product": "abc"}, "product"),
        ({"maturity_date": "01/01/2030"}, "YYYY-MM-DD"),
        ({"rate": None}, "missing rate"),
        ({"tax_free": "maybe"}, "tax_free"),
        ({"bank": "BB"}, "bank"),
    ],
)
def test_a_feed_with_a_bad_bond_is_rejected_whole_with_the_reason(change, message):
    content = json.dumps({"bonds": [BASE, {**BASE, **change}]}).encode()
    with pytest.raises(ProviderError, match=f"bond 2: .*{message}"):
        feeds.parse(content, fmt="json", what="feed")


def test_a_csv_feed_without_the_required_columns_is_rejected():
    with pytest.raises(ProviderError, match="header lacks"):
        feeds.parse(b"foo,bar\n1,2\n", fmt="csv", what="feed")
