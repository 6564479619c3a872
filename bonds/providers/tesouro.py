"""Tesouro Direto offers from the Tesouro Transparente CSV ("Taxas dos Títulos Ofertados pelo
Tesouro Direto"): `;`-separated, decimal comma, dd/mm/yyyy; only the latest Data Base is used and
only bonds on sale that day (PU Compra > 0)."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from bonds.providers.base import Offer, ProviderError, http_get

WHAT = "Tesouro Transparente CSV"
SOURCE = "tesouro"  # Bond.source of these offers, and of the demo's stand-ins for them
TESOURO_BANK_CODE = 0  # The Treasury has no bank code; Ponte uses 0 for it.
TESOURO_BANK_NAME = "Tesouro Nacional"
HEADER = [
    "Tipo Titulo",
    "Data Vencimento",
    "Data Base",
    "Taxa Compra Manha",
    "Taxa Venda Manha",
    "PU Compra Manha",
    "PU Venda Manha",
    "PU Base Manha",
]
# Tipo Titulo -> (index, name shown, years between the title's year and the last payment).
TYPES: dict[str, tuple[str, str, int]] = {
    "tesouro selic": ("selic+", "Tesouro Selic", 0),
    "tesouro prefixado": ("pre", "Tesouro Prefixado", 0),
    "tesouro prefixado com juros semestrais": ("pre", "Tesouro Prefixado com Juros Semestrais", 0),
    "tesouro ipca+": ("ipca+", "Tesouro IPCA+", 0),
    "tesouro ipca+ com juros semestrais": ("ipca+", "Tesouro IPCA+ com Juros Semestrais", 0),
    "tesouro renda+ aposentadoria extra": ("ipca+", "Tesouro Renda+ Aposentadoria Extra", 19),
    "tesouro renda+": ("ipca+", "Tesouro Renda+ Aposentadoria Extra", 19),
    "tesouro educa+": ("ipca+", "Tesouro Educa+", 4),
    "tesouro reserva": ("selic*", "Tesouro Reserva", 0),
}
MIN_PURCHASE = Decimal("30.00")  # Tesouro Direto: 1% of the unit price, at least R$ 30
# Tesouro Reserva (Tesouro Direto 24x7, from March 2026): 100% of Selic with no marking to market, so it
# is redeemed at par (what was invested plus the Selic accrued) any day, 24 hours a day, paid at once
# by Pix; bought from R$ 1, a fraction of its R$ 10 unit (Tesouro Nacional's launch notes). Not a sale
# at the day's price like the other titles.
RESERVA = "tesouro reserva"
RESERVA_TERMS = {
    "min_investment": 1.0,
    "early_withdrawal": True,
    "liquidity_kind": "redemption",
    "liquidity_days": 0,
}


def title_terms(kind: str, unit_price: Decimal) -> dict:
    """How a title is bought and comes back: Tesouro Reserva by its own terms; every other title from
    1% of its unit price (at least R$ 30), sold back at the day's price D+1 (bonds.offers)."""
    if kind == RESERVA:
        return dict(RESERVA_TERMS)
    minimum = max(MIN_PURCHASE, (unit_price / 100).quantize(Decimal("0.01"), rounding=ROUND_CEILING))
    return {"min_investment": float(minimum), "early_withdrawal": True}


def natural_key(label: str, maturity: date) -> str:
    """A title's identity: its type (as shown) and maturity. The demo's Tesouro titles are keyed the
    same way, so a real refresh updates them (same ids) instead of listing each title twice."""
    return f"{label}|{maturity.isoformat()}"


def _number(text: str) -> Decimal:
    cleaned = text.strip().replace(".", "").replace(",", ".") if "," in text else text.strip()
    return Decimal(cleaned)


def _date(text: str) -> date:
    return datetime.strptime(text.strip(), "%d/%m/%Y").date()  # noqa: DTZ007 (a date, no time)


def parse(content: bytes) -> list[Offer]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = content.decode("latin-1")
    reader = csv.reader(io.StringIO(text), delimiter=";")
    header = next(reader, None)
    if header is None:
        raise ProviderError(f"{WHAT}: the file is empty")
    header = [column.strip() for column in header]
    if header[: len(HEADER)] != HEADER:
        raise ProviderError(
            f"{WHAT}: unexpected header {';'.join(header)[:200]!r}; expected {';'.join(HEADER)!r}"
        )
    rows: list[tuple[date, str, date, Decimal, Decimal]] = []
    for row in reader:
        if len(row) < len(HEADER) or not row[0].strip():
            continue
        kind = row[0].strip().lower()
        if kind not in TYPES:
            continue  # IGPM+ and other historical types have no index in Ponte's enum
        try:
            rows.append((_date(row[2]), kind, _date(row[1]), _number(row[3]), _number(row[5])))
        except (ValueError, InvalidOperation):
            continue
    if not rows:
        raise ProviderError(f"{WHAT}: no usable rows")
    latest = max(row[0] for row in rows)
    offers = []
    for base_date, kind, maturity, rate_pct, unit_price in rows:
        if base_date != latest or unit_price <= 0:
            continue
        index, label, offset = TYPES[kind]
        rate = 1.0 if index == "selic*" else float(rate_pct / 100)
        offers.append(
            Offer(
                natural_key=natural_key(label, maturity),
                name=f"{label} {maturity.year - offset}",
                bank=TESOURO_BANK_CODE,
                bank_name=TESOURO_BANK_NAME,
                product="td",
                index=index,
                rate=rate,
                maturity_date=maturity,
                fgc_protection=False,
                tax_free=False,
                exclusive=False,
                **title_terms(kind, unit_price),  # the Treasury buys back every business day
            )
        )
    if not offers:
        raise ProviderError(f"{WHAT}: no bond on sale on the latest Data Base {latest:%d/%m/%Y}")
    return offers


def fetch(*, url: str, timeout: float) -> list[Offer]:
    return parse(http_get(url, timeout=timeout, what=WHAT).content)
