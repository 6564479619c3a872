"""Payment probability from a credit rating and a term: S&P emerging-markets cumulative default rates,
national-scale ratings mapped to the global scale first. Pure Python (no Django)."""

from __future__ import annotations

import math

# S&P Global, 2024 Annual Global Corporate Default and Rating Transition Study, Table 25 (emerging
# markets), average cumulative default rates in % after 1..10 years. AAA and AA are 0 throughout and
# A is given as 0.03.
EM_CUMULATIVE_DEFAULT_PCT: dict[str, tuple[float, ...]] = {
    "AAA": (0.0,) * 10,
    "AA": (0.0,) * 10,
    "A": (0.03,) * 10,
    "BBB": (0.10, 0.41, 0.76, 1.17, 1.55, 1.78, 1.91, 2.02, 2.09, 2.11),
    "BB": (0.54, 1.51, 2.55, 3.55, 4.42, 5.09, 5.67, 6.18, 6.64, 7.00),
    "B": (2.98, 6.09, 8.46, 10.45, 11.96, 13.11, 14.14, 15.01, 15.75, 16.52),
    "CCC": (17.58, 22.81, 25.84, 26.52, 27.69, 28.60, 29.37, 30.17, 30.68, 31.04),
}
# Brazilian national scale -> global scale, Austin Rating's table:
# brAAA -> BB+, brAA± -> BB, brA± -> BB-, brBBB± -> B+, brBB± -> B, brB± -> B-, CCC..D identical.
NATIONAL_TO_GLOBAL: dict[str, str] = {
    "AAA": "BB",
    "AA": "BB",
    "A": "BB",
    "BBB": "B",
    "BB": "B",
    "B": "B",
    "CCC": "CCC",
    "CC": "CCC",
    "C": "CCC",
    "D": "D",
}
_MOODYS = {"AAA": "AAA", "AA": "AA", "A": "A", "BAA": "BBB", "BA": "BB", "B": "B", "CAA": "CCC", "CA": "CCC"}


def rating_bucket(rating: str | None, *, national: bool = False) -> str | None:
    """The global letter bucket (AAA, AA, A, BBB, BB, B, CCC, D) a rating string maps to, or None.

    National-scale notations (`brAA+`, `AA+(bra)`, `AA+.br`) go through the national→global table;
    global ones (`BB-`, Moody's `Ba2`) map directly. `national=True` reads a plain notation (`AA`, as
    Liberum and others write it) on the national scale.
    """
    if rating is None:
        return None
    text = rating.strip()
    if not text or text == "-":
        return None
    lowered = text.lower()
    if lowered.startswith("br"):
        text, national = text[2:], True
    elif lowered.endswith("(bra)"):
        text, national = text[:-5], True
    elif lowered.endswith(".br"):
        text, national = text[:-3], True
    letters = "".join(ch for ch in text if ch.isalpha()).upper()
    if not letters:
        return None
    if letters in _MOODYS and any(ch.islower() for ch in text):
        letters = _MOODYS[letters]
    if letters in {"CC", "C", "SD", "RD"}:
        letters = "CCC" if letters in {"CC", "C"} else "D"
    if national:
        return NATIONAL_TO_GLOBAL.get(letters)
    return letters if letters in EM_CUMULATIVE_DEFAULT_PCT or letters == "D" else None


def payment_probability(
    rating: str | None, years: float, *, sovereign: bool = False, national: bool = False
) -> float | None:
    """P(paid at maturity) = 1 - CDR(bucket, T), with the survival curve interpolated geometrically
    between whole years, `(1 - CDR_1)^T` below a year and the last marginal hazard beyond 10 years.
    Sovereign (Tesouro) bonds are the domestic risk-free asset: 1.0. None when the rating is unknown."""
    if sovereign:
        return 1.0
    bucket = rating_bucket(rating, national=national)
    if bucket is None:
        return None
    if bucket == "D":
        return 0.0
    years = max(0.0, years)
    survival = [1.0] + [1.0 - pct / 100.0 for pct in EM_CUMULATIVE_DEFAULT_PCT[bucket]]
    last = len(survival) - 1
    if years <= 1.0:
        return survival[1] ** years
    if years >= last:
        hazard = survival[last] / survival[last - 1] if survival[last - 1] > 0 else 1.0
        return survival[last] * hazard ** (years - last)
    n = math.floor(years)
    low, high = survival[n], survival[n + 1]
    if low <= 0:
        return 0.0
    return low * (high / low) ** (years - n)
