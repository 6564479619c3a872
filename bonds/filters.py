"""The list filters of GET /bonds/api/ (and of the MCP tools): parsing and normalising.

Values outside the accepted lists are ignored, not errors: an odd value narrows nothing. The normalised form
is canonical (sorted, de-duplicated), so equivalent queries share one cached reply.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from bonds.models import Index, Product

PRODUCTS: tuple[str, ...] = tuple(Product.values)
INDEXES: tuple[str, ...] = tuple(Index.values)
FORMATS = ("json", "csv")
BANK_CODE_MAX_DIGITS = 9


@dataclass(frozen=True)
class BondFilters:
    products: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()
    banks: tuple[int, ...] = ()
    tax_free: bool | None = None
    fgc: bool | None = None
    # Not offered by the REST endpoint; used by the MCP tools.
    maturity_from: date | None = None
    maturity_to: date | None = None

    def cache_token(self) -> str:
        return "|".join(
            [
                ",".join(self.products),
                ",".join(self.indexes),
                ",".join(map(str, self.banks)),
                "" if self.tax_free is None else str(int(self.tax_free)),
                "" if self.fgc is None else str(int(self.fgc)),
                self.maturity_from.isoformat() if self.maturity_from else "",
                self.maturity_to.isoformat() if self.maturity_to else "",
            ]
        )


def _items(values: Iterable[str]) -> list[str]:
    """Comma-separated lists (form style); repeated parameters are accepted too."""
    return [item.strip() for value in values for item in str(value).split(",") if item.strip()]


def _index_item(item: str) -> str:
    # A `+` sent unencoded arrives as a space ("cdi "), which strip() turned into "cdi": a `+` was meant.
    lowered = item.lower()
    return f"{lowered}+" if lowered in {"cdi", "ipca", "selic"} else lowered


def _is_bank_code(item: str) -> bool:
    # ASCII digits only (str.isdigit() also takes "²", which int() refuses) and short enough for the
    # database's integer column; anything else is an odd value, ignored.
    return item.isascii() and item.isdigit() and len(item) <= BANK_CODE_MAX_DIGITS


def _flag(values: list[str]) -> bool | None:
    value = values[-1].strip() if values else ""
    return {"1": True, "0": False}.get(value)


def parse_filters(query: Mapping[str, list[str]]) -> BondFilters:
    """Parse a query given as name -> list of raw values (e.g. `dict(request.GET.lists())`)."""
    products = sorted({p.lower() for p in _items(query.get("product", [])) if p.lower() in PRODUCTS})
    indexes = sorted({i for i in map(_index_item, _items(query.get("index", []))) if i in INDEXES})
    banks = sorted({int(b) for b in _items(query.get("bank", [])) if _is_bank_code(b)})
    return BondFilters(
        products=tuple(products),
        indexes=tuple(indexes),
        banks=tuple(banks),
        tax_free=_flag(query.get("tax_free", [])),
        fgc=_flag(query.get("fgc", [])),
    )


def parse_format(query: Mapping[str, list[str]]) -> str:
    values = query.get("format", [])
    value = values[-1].strip().lower() if values else ""
    return value if value in FORMATS else "json"


def parse_locale(query: Mapping[str, list[str]], fmt: str) -> str | None:
    """`pt-BR` (any case, `_` or `-`) with CSV; otherwise no locale."""
    values = query.get("locale", [])
    value = values[-1].strip().replace("_", "-").lower() if values else ""
    return "pt-BR" if fmt == "csv" and value == "pt-br" else None
