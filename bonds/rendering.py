"""Bond list bodies: the JSON BondList and the CSV reply (plain, or pt-BR with `;`).

Rows are plain tuples in JSON_FIELDS order (from `selectors.bond_rows`), so rendering 2,000 offers
is a loop over tuples, not over model instances. The CSV keeps exactly the published columns
(BOND_FIELDS, the first ones of each row); the JSON adds the fields after them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

# The published CSV column order, which is also the order of the Bond fields.
BOND_FIELDS: tuple[str, ...] = (
    "name",
    "bank",
    "bank_name",
    "product",
    "index",
    "rate",
    "fgc_protection",
    "tax_free",
    "exclusive",
    "min_investment",
    "maturity_date",
    "early_withdrawal",
    "rating",
    "payment_probability",
    "net_annualized_return",
    "real_annualized_return",
)
# JSON only, after the published Bond fields: liquidity and the tax-equivalent share of the CDI.
EXTRA_JSON_FIELDS: tuple[str, ...] = ("liquidity_days", "grace_period_days", "net_return_cdi_percent")
JSON_FIELDS: tuple[str, ...] = BOND_FIELDS + EXTRA_JSON_FIELDS
BOOLEAN_FIELDS = frozenset({"fgc_protection", "tax_free", "exclusive", "early_withdrawal"})
NUMBER_FIELDS = frozenset(
    {"rate", "min_investment", "payment_probability", "net_annualized_return", "real_annualized_return"}
)
PT_BR = "pt-BR"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"


def bond_dict(row: Sequence[Any]) -> dict[str, Any]:
    item = dict(zip(JSON_FIELDS, row, strict=True))
    maturity = item["maturity_date"]
    if isinstance(maturity, date):
        item["maturity_date"] = maturity.isoformat()
    return item


def render_json(*, status: str, description: str, rows: Iterable[Sequence[Any]]) -> bytes:
    body = {"response": {"status": status, "description": description}, "bonds": [bond_dict(r) for r in rows]}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _number(value: float | int, decimal_comma: bool) -> str:
    if isinstance(value, int):
        text = str(value)
    else:
        # Fixed notation (never 1e-05), trailing zeros trimmed: 1.05, 0.1165, 1000.
        text = f"{value:.10f}".rstrip("0").rstrip(".")
        if text in {"-0", ""}:
            text = "0"
    return text.replace(".", ",") if decimal_comma else text


# A spreadsheet runs a cell starting with these as a formula (CSV injection): such text cells get a
# leading apostrophe, which spreadsheets show as text and hide. Numbers are written by Ponte and
# never neutralised. A lone "-" ("rating omitted") is not a formula and stays as is.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
UTF8_BOM = "\ufeff".encode()


def neutralised(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) and text != "-" else text


def csv_cells(row: Sequence[Any], *, locale: str | None) -> list[str]:
    portuguese = locale == PT_BR
    true, false = ("VERDADEIRO", "FALSO") if portuguese else ("TRUE", "FALSE")
    cells = []
    for name, value in zip(BOND_FIELDS, row[: len(BOND_FIELDS)], strict=True):
        if value is None:
            cells.append("")
        elif name in BOOLEAN_FIELDS:
            cells.append(true if value else false)
        elif name in NUMBER_FIELDS:
            cells.append(_number(value, portuguese))
        elif isinstance(value, date):
            cells.append(value.isoformat())
        else:
            cells.append(neutralised(str(value)))
    return cells


def render_csv(*, rows: Iterable[Sequence[Any]], locale: str | None, bom: bool = False) -> bytes:
    """Header row then one row per bond. pt-BR writes decimal commas, so its separator is `;`
    (what spreadsheets configured for Brazil expect). `bom` starts the file with a UTF-8 BOM, which
    Excel needs to read accents as UTF-8."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";" if locale == PT_BR else ",", lineterminator="\r\n")
    writer.writerow(BOND_FIELDS)
    for row in rows:
        writer.writerow(csv_cells(row, locale=locale))
    body = buffer.getvalue().encode()
    return UTF8_BOM + body if bom else body
