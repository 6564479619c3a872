"""Tesouro Reserva with its own terms: redeemed at par any day (liquidity_kind `redemption`, D+0), from
R$ 1; the other Tesouro titles stay sales at the day's price, D+1 (issue 43, item 9)."""

from __future__ import annotations

import pytest

from bonds.demo import demo_offers
from bonds.offers import bond_offers_upsert, offer_values
from bonds.providers import tesouro
from tests.bonds.conftest import fixture_bytes

RESERVA_ROW = "Tesouro Reserva;01/03/2029;20/11/2026;0,00;0,00;10,02;10,02;10,02\n"


def with_reserva() -> bytes:
    return fixture_bytes("tesouro.csv").rstrip(b"\n") + b"\n" + RESERVA_ROW.encode()


def test_the_feed_reads_tesouro_reserva_with_its_real_terms():
    offers = {offer.name: offer for offer in tesouro.parse(with_reserva())}
    reserva = offers["Tesouro Reserva 2029"]
    assert (reserva.index, reserva.rate, reserva.min_investment) == ("selic*", 1.0, 1.0)
    values = offer_values(reserva)
    assert (values["early_withdrawal"], values["liquidity_kind"], values["liquidity_days"]) == (
        True, "redemption", 0,
    )  # fmt: skip
    selic = offer_values(offers["Tesouro Selic 2031"])
    assert (selic["early_withdrawal"], selic["liquidity_kind"], selic["liquidity_days"]) == (False, "sale", 1)
    assert offers["Tesouro Selic 2031"].min_investment == pytest.approx(196.48)


def test_the_demo_lists_tesouro_reserva_on_the_same_terms():
    (reserva,) = [offer for offer in demo_offers(count=0) if offer.name == "Tesouro Reserva"]
    assert (reserva.min_investment, reserva.liquidity_kind, reserva.liquidity_days) == (1.0, "redemption", 0)


@pytest.mark.django_db
def test_the_listing_shows_tesouro_reserva_redeemed_at_par_the_same_day(client, key):
    from tests.bonds.test_assumptions import listed, snapshot

    snapshot()
    bond_offers_upsert(source=tesouro.SOURCE, offers=tesouro.parse(with_reserva()))
    rows = {row["name"]: row for row in listed(client, key)["bonds"]}
    reserva = rows["Tesouro Reserva 2029"]
    assert (reserva["early_withdrawal"], reserva["liquidity_kind"], reserva["liquidity_days"]) == (
        True, "redemption", 0,
    )  # fmt: skip
    assert reserva["min_investment"] == 1.0
    assert rows["Tesouro Selic 2031"]["liquidity_kind"] == "sale"
