"""Broker offer feeds in Ponte's own schema: the JSON BondList (or a bare list of bonds) or the CSV
reply of GET /bonds/api/ (comma, or pt-BR with `;`, decimal comma and VERDADEIRO/FALSO). So one
Ponte's output is another's input. A feed is all-or-nothing: one bad row rejects the whole file,
and the feed's previous offers stay as they were."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from bonds.finance.cashflows import INTEREST_PERIODS
from bonds.providers.base import Offer, ProviderError, http_get
from bonds.rendering import BOND_FIELDS, FORMULA_STARTS

PRODUCTS = ("cdb", "lci", "lca", "cri", "cra", "deb", "tpf", "td", "lf", "misc")
INDEXES = ("cdi*", "cdi+", "ipca*", "ipca+", "selic*", "selic+", "pre")
REQUIRED = ("name", "bank", "product", "index", "rate", "maturity_date")
_TRUE = {"true", "verdadeiro", "1", "yes", "sim"}
_FALSE = {"false", "falso", "0", "no", "nao", "não", ""}
OK_STATUSES = {"ok", "preview"}


def _bool(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{field}: {value!r} is not a boolean (TRUE/FALSE, VERDADEIRO/FALSO, true/false)")


def _float(value: Any, field: str, *, decimal_comma: bool) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field}: {value!r} is not a number")
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if decimal_comma:
        text = text.replace(".", "").replace(",", ".")
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{field}: {value!r} is not a number") from None


def _days(value: Any, field: str) -> int | None:
    """An optional whole number of days (liquidity, grace period); empty or null: unknown."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field}: {value!r} is not a whole number of days")
    try:
        days = int(str(value).strip())
    except ValueError:
        raise ValueError(f"{field}: {value!r} is not a whole number of days") from None
    if days < 0:
        raise ValueError(f"{field}: {days} is negative")
    return days


def _text(value: Any) -> str:
    """A text cell; the apostrophe Ponte's CSV puts before a formula-like text (`'=...`) is dropped."""
    text = str(value).strip()
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA_STARTS else text


def offer_from_mapping(item: Mapping[str, Any], *, decimal_comma: bool = False) -> Offer:
    missing = [name for name in REQUIRED if item.get(name) in (None, "")]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    product = str(item["product"]).strip().lower()
    if product not in PRODUCTS:
        raise ValueError(f"product: {item['product']!r} is not one of {', '.join(PRODUCTS)}")
    index = str(item["index"]).strip().lower()
    if index not in INDEXES:
        raise ValueError(f"index: {item['index']!r} is not one of {', '.join(INDEXES)}")
    try:
        bank = int(str(item["bank"]).strip())
    except ValueError:
        raise ValueError(f"bank: {item['bank']!r} is not a whole number") from None
    if bank < 0:
        raise ValueError(f"bank: {bank} is negative")
    try:
        maturity = date.fromisoformat(str(item["maturity_date"]).strip())
    except ValueError:
        raise ValueError(f"maturity_date: {item['maturity_date']!r} is not YYYY-MM-DD") from None
    rate = _float(item["rate"], "rate", decimal_comma=decimal_comma)
    minimum = _float(item.get("min_investment"), "min_investment", decimal_comma=decimal_comma) or 0.0
    name = _text(item["name"])[:200]
    rating = item.get("rating")
    rating = None if rating is None or str(rating).strip() == "" else _text(rating)[:20]
    # An empty rating means the feed does not know it: the issuer's rating (admin) applies then.
    rating_given = rating is not None
    return Offer(
        natural_key=f"{bank}|{product}|{index}|{maturity.isoformat()}|{name}"[:240],
        name=name,
        bank=bank,
        bank_name=_text(item.get("bank_name") or "")[:200] or f"Bank {bank}",
        product=product,
        index=index,
        rate=float(rate),  # REQUIRED checked above
        maturity_date=maturity,
        fgc_protection=_bool(item.get("fgc_protection"), "fgc_protection"),
        tax_free=_bool(item.get("tax_free"), "tax_free"),
        exclusive=_bool(item.get("exclusive"), "exclusive"),
        min_investment=minimum,
        early_withdrawal=_bool(item.get("early_withdrawal"), "early_withdrawal"),
        rating=rating,
        rating_given=rating_given,
        liquidity_days=_days(item.get("liquidity_days"), "liquidity_days"),
        grace_period_days=_days(item.get("grace_period_days"), "grace_period_days"),
        coupon_months=_coupon_months(item.get("coupon_months")),
    )


def _coupon_months(value: Any) -> int | None:
    """Optional: months between interest payments (1, 3, 6 or 12); empty or null: at maturity."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or int(text) not in INTEREST_PERIODS:
        choices = ", ".join(map(str, INTEREST_PERIODS))
        raise ValueError(f"coupon_months: {value!r} is not one of {choices} (months between payments)")
    return int(text)


def _offers(items: Iterable[Mapping[str, Any]], *, what: str, decimal_comma: bool) -> list[Offer]:
    offers: list[Offer] = []
    seen: dict[str, int] = {}
    for number, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise ProviderError(f"{what}: bond {number} is not an object")
        try:
            offer = offer_from_mapping(item, decimal_comma=decimal_comma)
        except ValueError as exc:
            raise ProviderError(f"{what}: bond {number}: {exc}") from None
        # Two offers may share name, bank and maturity: number the repeats so each keeps its identity.
        seen[offer.natural_key] = seen.get(offer.natural_key, 0) + 1
        if seen[offer.natural_key] > 1:
            offer = Offer(
                **{**offer.__dict__, "natural_key": f"{offer.natural_key}#{seen[offer.natural_key]}"}
            )
        offers.append(offer)
    return offers


def parse_json(content: bytes, *, what: str) -> list[Offer]:
    try:
        payload = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProviderError(f"{what}: not valid JSON ({exc})") from None
    if isinstance(payload, dict):
        response = payload.get("response")
        if isinstance(response, dict) and response.get("status") not in OK_STATUSES:
            status, text = response.get("status"), response.get("description", "")
            raise ProviderError(f"{what}: the feed answered status {status!r}: {text}")
        payload = payload.get("bonds")
    if not isinstance(payload, list):
        raise ProviderError(f"{what}: expected a BondList object with 'bonds' or a list of bonds")
    return _offers(payload, what=what, decimal_comma=False)


def parse_csv(content: bytes, *, what: str) -> list[Offer]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProviderError(f"{what}: the CSV is not UTF-8") from None
    first_line = text.split("\n", 1)[0]
    portuguese = ";" in first_line
    reader = csv.DictReader(io.StringIO(text), delimiter=";" if portuguese else ",")
    columns = [column.strip() for column in reader.fieldnames or []]
    missing = [name for name in REQUIRED if name not in columns]
    if missing:
        raise ProviderError(
            f"{what}: the CSV header lacks {', '.join(missing)}; expected the columns {','.join(BOND_FIELDS)}"
        )
    rows = ({(key or "").strip(): value for key, value in row.items()} for row in reader)
    return _offers(rows, what=what, decimal_comma=portuguese)


def parse(content: bytes, *, fmt: str, what: str) -> list[Offer]:
    if fmt == "auto":
        fmt = "json" if content.lstrip()[:1] in (b"{", b"[") else "csv"
    return parse_json(content, what=what) if fmt == "json" else parse_csv(content, what=what)


def fetch(*, url: str, fmt: str, timeout: float, what: str) -> list[Offer]:
    response = http_get(url, timeout=timeout, what=what)
    status = response.headers.get("X-Ponte-Status")
    if status and status not in OK_STATUSES:
        raise ProviderError(f"{what}: the feed answered X-Ponte-Status {status!r}")
    return parse(response.content, fmt=fmt, what=what)
