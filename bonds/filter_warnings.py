"""What the bond list says about filter values it ignored. The contract ignores a value outside the
accepted lists rather than refusing it, so a typo (`product=xyz`, `sort=-bogus`) silently returned every
bond; the JSON reply now also says which values were ignored, in a `warnings` list (issue 45). The list,
its filtering and its cache are unchanged: the warnings depend only on the query's raw text and are added
to the rendered reply."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from bonds.filter_fields import stripped_text
from bonds.filters import PRODUCTS, SORT_FIELDS, SORT_VALUES


def _items(values: list[str]) -> list[str]:
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def filter_warnings(query: Mapping[str, list[str]]) -> list[str]:
    """One sentence per ignored `product` or `sort` value, in the order given."""
    warnings = [
        f"product: {item!r} is not one of {', '.join(PRODUCTS)}; ignored."
        for item in _items(query.get("product", []))
        if item.lower() not in PRODUCTS
    ]
    for value in query.get("sort", [])[-1:]:  # the last one counts, as the filter reads it
        text = (stripped_text(value) or "").lower().removeprefix("+").strip()
        if text and text not in SORT_VALUES:
            warnings.append(
                f"sort: {value!r} is not a field to sort by ({', '.join(SORT_FIELDS)}, `-` before it for "
                "descending); the default order is used."
            )
    return warnings


def with_warnings(first_piece: bytes, warnings: list[str]) -> bytes:
    """A JSON reply's first piece with `"warnings": [...]` as the object's first member."""
    member = json.dumps({"warnings": warnings}, ensure_ascii=False)[1:-1].encode()
    start = first_piece.index(b"{") + 1
    return first_piece[:start] + member + b", " + first_piece[start:]


def pieces_with_warnings(pieces: Iterator[bytes], warnings: list[str]) -> Iterator[bytes]:
    first = True
    for piece in pieces:
        if first and piece:
            piece, first = with_warnings(piece, warnings), False
        yield piece
