"""Bond list bodies: the JSON BondList and the CSV reply (plain, or pt-BR with `;`).

Rows are plain tuples in JSON_FIELDS order (from `replies.bond_rows`), so rendering 2,000 offers
is a loop over tuples, not over model instances. Each row starts with the offer's `id`, then the
published columns (BOND_FIELDS), then the JSON-only fields. The CSV keeps exactly the published
columns (CSV_COLUMNS of each row); the JSON has them all.

Each body has two renders with the same bytes: whole (`render_json`, `render_csv`) and in pieces of
a few hundred rows (`json_pieces`, `csv_pieces`), which pull rows from their iterable only as each
piece is made, so a long list is never held whole as rows, dicts or text.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Generator, Iterable, Iterator, Sequence
from datetime import date
from itertools import islice
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
# JSON only, after the published Bond fields: liquidity, the tax-equivalent share of the CDI, the
# probability of being paid within the FGC limit, and how the money comes back before maturity.
EXTRA_JSON_FIELDS: tuple[str, ...] = (
    "liquidity_days",
    "grace_period_days",
    "net_return_cdi_percent",
    "covered_payment_probability",
    "liquidity_kind",
)
# Bonds v4's row fields: in the JSON after those, and in the CSV after the seed's 16 columns (which stay
# first and in their order).
ADDED_FIELDS: tuple[str, ...] = (
    "fgc_covered_share",
    "payment_schedule",
    "first_payment_date",
    "horizon_reachable",
)
# JSON only, before them: Ponte's id of the offer (kept across refreshes; what MCP project_bond takes).
JSON_FIELDS: tuple[str, ...] = ("id", *BOND_FIELDS, *EXTRA_JSON_FIELDS, *ADDED_FIELDS)
# The CSV's columns: the seed's, then the added ones; and where each is in a row.
CSV_FIELDS: tuple[str, ...] = (*BOND_FIELDS, *ADDED_FIELDS)
CSV_POSITIONS: tuple[int, ...] = tuple(JSON_FIELDS.index(name) for name in CSV_FIELDS)
DATE_FIELDS = ("maturity_date", "first_payment_date")
BOOLEAN_FIELDS = frozenset(
    {"fgc_protection", "tax_free", "exclusive", "early_withdrawal", "horizon_reachable"}
)
NUMBER_FIELDS = frozenset(
    {
        "rate",
        "min_investment",
        "payment_probability",
        "net_annualized_return",
        "real_annualized_return",
        "fgc_covered_share",
    }
)
PT_BR = "pt-BR"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"


def bond_dict(row: Sequence[Any]) -> dict[str, Any]:
    item = dict(zip(JSON_FIELDS, row, strict=True))
    for name in DATE_FIELDS:
        if isinstance(item[name], date):
            item[name] = item[name].isoformat()
    return item


def _head(status: str, description: str, assumptions: dict | None) -> dict[str, Any]:
    """The BondList before its `bonds`: the response, then what the figures assumed."""
    return {"response": {"status": status, "description": description}, "assumptions": assumptions}


def render_json(
    *, status: str, description: str, rows: Iterable[Sequence[Any]], assumptions: dict | None = None
) -> bytes:
    body = {**_head(status, description, assumptions), "bonds": [bond_dict(r) for r in rows]}
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
    for name, position in zip(CSV_FIELDS, CSV_POSITIONS, strict=True):
        value = row[position]
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
    writer.writerow(CSV_FIELDS)
    for row in rows:
        writer.writerow(csv_cells(row, locale=locale))
    body = buffer.getvalue().encode()
    return UTF8_BOM + body if bom else body


def _batches(rows: Iterable[Sequence[Any]], size: int) -> Iterator[tuple[list[Sequence[Any]], bool]]:
    """Lists of `size` rows, each with whether it is the last; one batch is read ahead to know that
    (an empty `rows` gives one empty last batch), so the last piece can carry a body's tail."""
    iterator = iter(rows)
    batch = list(islice(iterator, size))
    while True:
        following = list(islice(iterator, size)) if len(batch) == size else []
        yield batch, not following
        if not following:
            return
        batch = following


def json_pieces(
    *,
    status: str,
    description: str,
    rows: Iterable[Sequence[Any]],
    rows_per_piece: int,
    assumptions: dict | None = None,
) -> Generator[bytes, None, None]:
    """`render_json`'s bytes in pieces of `rows_per_piece` bonds (the list's brackets and commas are
    json.dumps's own: `[` + items joined by `,` + `]` with these separators)."""
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    head = encode(_head(status, description, assumptions))
    opening = head[:-1] + ',"bonds":['  # the same object, its closing brace moved to the end
    for number, (batch, last) in enumerate(_batches(rows, rows_per_piece)):
        text = ",".join(encode(bond_dict(row)) for row in batch)
        text = opening + text if number == 0 else "," + text  # later batches are never empty
        yield (text + "]}" if last else text).encode()


def csv_pieces(
    *, rows: Iterable[Sequence[Any]], locale: str | None, bom: bool = False, rows_per_piece: int
) -> Generator[bytes, None, None]:
    """`render_csv`'s bytes in pieces of `rows_per_piece` rows (the first also has the BOM and the
    header row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";" if locale == PT_BR else ",", lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for number, (batch, _last) in enumerate(_batches(rows, rows_per_piece)):
        writer.writerows(csv_cells(row, locale=locale) for row in batch)
        piece = buffer.getvalue().encode()
        buffer.seek(0)
        buffer.truncate()
        yield UTF8_BOM + piece if bom and number == 0 else piece
