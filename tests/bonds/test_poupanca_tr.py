"""Poupança with the real TR: BCB SGS series 226 as a refresh source of its own (`sgs-tr`), read in its
real format by a local stand-in; `assumptions.poupanca` shows the TR used and its date (issue 43,
item 6)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bonds import finance
from bonds.models import ProjectionSnapshot
from bonds.projections import listing_assumptions, projection_of
from bonds.providers import sgs
from bonds.providers.base import ProviderError
from bonds.refresh import bonds_refresh
from tests.bonds.conftest import fixture_bytes

TR_ROWS = json.loads(fixture_bytes("sgs_226.json"))


def test_the_tr_in_force_is_the_latest_month_started_by_today():
    assert sgs.parse_tr(TR_ROWS, today=date(2026, 11, 17)) == sgs.TrValue(date(2026, 11, 17), 0.1712)
    assert sgs.parse_tr(TR_ROWS, today=date(2026, 11, 30)) == sgs.TrValue(date(2026, 11, 18), 0.1698)
    # Asked before any row starts: the first one published.
    assert sgs.parse_tr(TR_ROWS, today=date(2026, 11, 1)).day == date(2026, 11, 16)


def test_an_answer_without_a_tr_is_a_failure_of_that_source():
    with pytest.raises(ProviderError, match="226"):
        sgs.parse_tr([], today=date(2026, 11, 30))
    with pytest.raises(ProviderError, match="226"):
        sgs.parse_tr({"error": "x"}, today=date(2026, 11, 30))


def test_the_tr_is_asked_for_by_a_window_of_dates():
    url = sgs.tr_url("https://api.bcb.gov.br/dados/serie", date(2026, 11, 30))
    assert url == (
        "https://api.bcb.gov.br/dados/serie/bcdata.sgs.226/dados?formato=json"
        "&dataInicial=21/10/2026&dataFinal=30/11/2026"
    )


def test_poupanca_with_the_tr_in_force_pays_about_8_35_percent_not_6_17():
    projection = finance.Projection.flat(cdi=0.1415, ipca=0.045)
    with_tr = finance.poupanca_annual_return(projection, date(2026, 11, 30), 0.001698)
    assert with_tr == pytest.approx((1.001698 * 1.005) ** 12 - 1)
    assert (
        0.083 < with_tr < 0.085 and finance.poupanca_annual_return(projection, date(2026, 11, 30), 0) < 0.062
    )


@pytest.mark.django_db
def test_a_refresh_reads_the_tr_and_the_listing_says_which_and_of_when(live_sources, client, key):
    bonds_refresh()
    assert any("bcdata.sgs.226/dados?" in path and "dataInicial=" in path for path in live_sources.requests)
    from tests.bonds.test_assumptions import listed

    poupanca = listed(client, key)["assumptions"]["poupanca"]
    assert poupanca["tr_monthly"] == pytest.approx(0.001698)
    assert poupanca["tr_date"] == "2026-11-18"
    assert poupanca["annual_return"] > 0.08


@pytest.mark.django_db
def test_a_failed_tr_keeps_the_previous_one_and_none_at_all_means_no_benchmark(live_sources):
    bonds_refresh()
    first = ProjectionSnapshot.objects.get()
    live_sources.route("/sgs/bcdata.sgs.226/dados", "<html>502</html>", status=502, content_type="text/html")
    run = bonds_refresh()
    assert "sgs-tr" in run.failed_sources
    again = ProjectionSnapshot.objects.get()
    assert (again.tr_monthly, again.tr_date) == (first.tr_monthly, first.tr_date)
    again.tr_monthly = again.tr_date = None
    listed = listing_assumptions(again, date(2026, 11, 30))["poupanca"]
    assert listed == {"annual_return": None, "tr_monthly": None, "tr_date": None,
                      "tr_source": "unknown (SGS 226 gave none)"}  # fmt: skip
    assert projection_of(again) is not None
