"""Payment probability from a credit rating and a term: S&P emerging-markets cumulative default rates
per rating notch, national-scale ratings placed on the global scale first; and the probability of
being paid within the deposit guarantee (FGC). Pure Python (no Django).

Notches. S&P's emerging-markets table gives one row per letter (AAA, AA, A, BBB, BB, B, CCC/C); each
row is taken as the middle notch of its letter (AA = AA, BB = BB) and the notches between two rows
are interpolated geometrically (linearly next to a row of zeros), so every notch has its own curve
and a worse notch never defaults less. Austin Rating's table places the Brazilian national scale on
the global one (brAAA -> BB+, brAA± -> BB, brA± -> BB-, brBBB± -> B+, brBB± -> B, brB± -> B-, CCC and
below identical); within one global notch the three national notches sit a third of a notch apart
(brAA+ above BB, brAA at BB, brAA- below), so brAAA > brAA+ > brAA > ... at the same term.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import accumulate, pairwise

# S&P Global, 2024 Annual Global Corporate Default and Rating Transition Study (27 Mar 2025), Table
# 25 (emerging markets), average cumulative default rates in % after 1..10 years. AAA and AA are 0
# throughout and A is given as 0.03.
EM_CUMULATIVE_DEFAULT_PCT: dict[str, tuple[float, ...]] = {
    "AAA": (0.0,) * 10,
    "AA": (0.0,) * 10,
    "A": (0.03,) * 10,
    "BBB": (0.10, 0.41, 0.76, 1.17, 1.55, 1.78, 1.91, 2.02, 2.09, 2.11),
    "BB": (0.54, 1.51, 2.55, 3.55, 4.42, 5.09, 5.67, 6.18, 6.64, 7.00),
    "B": (2.98, 6.09, 8.46, 10.45, 11.96, 13.11, 14.14, 15.01, 15.75, 16.52),
    "CCC": (17.58, 22.81, 25.84, 26.52, 27.69, 28.60, 29.37, 30.17, 30.68, 31.04),
}
# The global scale by notch, best first (S&P/Fitch symbols, and Moody's equivalents).
GLOBAL_NOTCHES: tuple[str, ...] = (
    "AAA", "AA+", "AA", "AA-", "A+", "A", "A-", "BBB+", "BBB", "BBB-", "BB+", "BB", "BB-",
    "B+", "B", "B-", "CCC+", "CCC", "CCC-", "CC", "C",
)  # fmt: skip
MOODYS_NOTCHES: tuple[str, ...] = (
    "AAA", "AA1", "AA2", "AA3", "A1", "A2", "A3", "BAA1", "BAA2", "BAA3", "BA1", "BA2", "BA3",
    "B1", "B2", "B3", "CAA1", "CAA2", "CAA3", "CA", "C",
)  # fmt: skip
# Each letter row of the table sits at its middle notch.
_ANCHORS: tuple[tuple[int, str], ...] = (
    (0, "AAA"), (2, "AA"), (5, "A"), (8, "BBB"), (11, "BB"), (14, "B"), (17, "CCC"),
)  # fmt: skip
# Brazilian national scale -> global scale, Austin Rating's table (austin.com.br/Escalas-de-Rating.html).
NATIONAL_TO_GLOBAL: dict[str, str] = {
    "AAA": "BB+",
    "AA": "BB",
    "A": "BB-",
    "BBB": "B+",
    "BB": "B",
    "B": "B-",
    "CCC": "CCC",
    "CC": "CC",
    "C": "C",
}
_DEFAULTED = {"D", "SD", "RD"}
_MODIFIER_SHIFT = {"+": -1 / 3, "": 0.0, "-": 1 / 3}


def _national_position(notch: str) -> float:
    """A national notch's place on the global scale (0 = AAA ... 20 = C), a third of a notch apart."""
    letters = notch.rstrip("+-")
    modifier = notch[len(letters) :]
    centre = GLOBAL_NOTCHES.index(NATIONAL_TO_GLOBAL[letters])
    if letters in {"AAA", "CCC", "CC", "C"}:
        return centre + (_MODIFIER_SHIFT[modifier] * 3 if letters == "CCC" else 0.0)
    return centre + _MODIFIER_SHIFT[modifier]


def rating_position(rating: str | None, *, national: bool = False) -> float | None:
    """The rating's place on the global notch scale (0 = AAA, 11 = BB, 20 = C), math.inf for a
    default (D, SD, RD), None when it is not a rating.

    National-scale notations (`brAA+`, `AA+(bra)`, `AA+.br`) are placed by Austin's table; global
    ones (`BB-`, Moody's `Ba2`) directly. `national=True` reads a plain notation (`AA`, as Liberum and
    others write it) on the national scale."""
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
    text = text.replace(" ", "")
    upper = text.upper()
    if upper in _DEFAULTED:
        return math.inf
    if any(ch.islower() for ch in text):  # Moody's: Aaa, Ba2, Caa1 (no digit: the middle notch)
        symbol = upper if upper in MOODYS_NOTCHES or upper in {"AAA", "CA", "C"} else upper + "2"
        if symbol in MOODYS_NOTCHES:
            upper = GLOBAL_NOTCHES[MOODYS_NOTCHES.index(symbol)]
    if upper not in GLOBAL_NOTCHES:
        return None
    return _national_position(upper) if national else float(GLOBAL_NOTCHES.index(upper))


def rating_bucket(rating: str | None, *, national: bool = False) -> str | None:
    """The global letter bucket (AAA, AA, A, BBB, BB, B, CCC, D) of a rating, or None."""
    position = rating_position(rating, national=national)
    if position is None:
        return None
    if position == math.inf:
        return "D"
    letters = GLOBAL_NOTCHES[round(position)].rstrip("+-")
    return "CCC" if letters in {"CC", "C"} else letters


def _between(low: float, high: float, share: float) -> float:
    if low > 0 and high > 0:
        return low * (high / low) ** share
    return low + (high - low) * share


def cumulative_default_pct(position: float) -> tuple[float, ...]:
    """Cumulative default rates (%) after 1..10 years at a notch position: the table's letter rows
    at their middle notches, geometric in between; below CCC the B -> CCC step of the survival
    (1 - CDR) per notch goes on, so CC and C default more than CCC but never surely. A cumulative
    rate never falls with the term (the running maximum year by year): the step below CCC shrinks
    between years 3 and 4, which had made brC's survival rise from 0.6008 to 0.6029."""
    return tuple(accumulate(_cumulative_default_pct(position), max))


def _cumulative_default_pct(position: float) -> tuple[float, ...]:
    rows = [(place, EM_CUMULATIVE_DEFAULT_PCT[letters]) for place, letters in _ANCHORS]
    if position <= rows[0][0]:
        return rows[0][1]
    for place, row in rows:
        if position == place:  # a letter's middle notch: the table's own row
            return row
    for (low_place, low), (high_place, high) in pairwise(rows):
        if position <= high_place:
            share = (position - low_place) / (high_place - low_place)
            return tuple(_between(a, b, share) for a, b in zip(low, high, strict=True))
    (b_place, b_row), (c_place, c_row) = rows[-2], rows[-1]
    beyond = (position - c_place) / (c_place - b_place)
    return tuple(
        100.0 - (100.0 - c) * ((100.0 - c) / (100.0 - b)) ** beyond for b, c in zip(b_row, c_row, strict=True)
    )


def payment_probability(
    rating: str | None, years: float, *, sovereign: bool = False, national: bool = False
) -> float | None:
    """P(paid at maturity) = 1 - CDR(notch, T), with the survival curve interpolated geometrically
    between whole years, `(1 - CDR_1)^T` below a year and the last marginal hazard beyond 10 years.
    Sovereign (Tesouro) bonds are the domestic risk-free asset: 1.0. None when the rating is unknown."""
    if sovereign:
        return 1.0
    position = rating_position(rating, national=national)
    if position is None:
        return None
    if position == math.inf:
        return 0.0
    years = max(0.0, years)
    survival = [1.0] + [1.0 - pct / 100.0 for pct in cumulative_default_pct(position)]
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


# The FGC (Fundo Garantidor de Créditos) covers CDB, RDB, LC, LCI, LCA (and other deposits) up to
# BRL 250,000 per taxpayer per institution or conglomerate, principal plus interest (and BRL 1,000,000
# per taxpayer every four years across institutions: documented, not modelled per holder). It has paid
# every guaranteed claim since 1995 (Banco Master's BRL 41 bn in 2025-26 included); Ponte takes a 0.1%
# chance that it cannot pay a covered claim when the issuer defaults.
FGC_LIMIT_PER_INSTITUTION = 250_000.0
FGC_GLOBAL_LIMIT_PER_FOUR_YEARS = 1_000_000.0
FGC_SHORTFALL = 0.001
# Default dates are taken month by month (at most this many steps: a 30-year bond is read by quarters).
_DEFAULT_STEPS_MAX = 120


def fgc_covered_share(*, amount: float, growth: float, fgc_protection: bool) -> float | None:
    """The share of what is owed at maturity (`amount` x its gross growth `growth`: principal plus
    interest) that the FGC's BRL 250,000 covers; None where there is no FGC."""
    if not fgc_protection:
        return None
    owed = amount * max(growth, 1.0)
    return 1.0 if owed <= FGC_LIMIT_PER_INSTITUTION else FGC_LIMIT_PER_INSTITUTION / owed


def covered_payment_probability(
    probability: float | None,
    *,
    fgc_protection: bool,
    amount: float = 0.0,
    growth: float = 1.0,
    years: float = 0.0,
    survival: Callable[[float], float | None] | None = None,
) -> float | None:
    """P(paid) counting the FGC: the issuer pays, or else, in a default, the FGC pays the share of the
    amount owed on the default date (`amount` grown to then at the offer's gross rate, `growth` over
    `years` to maturity) that is within BRL 250,000, and the issuer nothing of the rest (no recovery
    is assumed). Default dates follow the issuer's survival curve `survival(t)`, month by month. When
    what is owed never exceeds the limit this is `1 - (1 - P) x 0.001`: at least 0.999. An issuer
    without a usable rating counts as defaulting at maturity, on the whole claim. The issuer's
    probability where there is no FGC."""
    if not fgc_protection:
        return probability
    covered = 1.0 - FGC_SHORTFALL
    if amount * max(growth, 1.0) <= FGC_LIMIT_PER_INSTITUTION:
        issuer_default = 1.0 if probability is None else 1.0 - probability
        return 1.0 - issuer_default * FGC_SHORTFALL
    if probability is None or survival is None or years <= 0:
        share = fgc_covered_share(amount=amount, growth=growth, fgc_protection=True) or 0.0
        paid = 0.0 if probability is None else probability
        return paid + (1.0 - paid) * share * covered
    steps = max(1, min(_DEFAULT_STEPS_MAX, math.ceil(years * 12)))
    total, previous = probability, 1.0
    for step in range(1, steps + 1):
        now = years * step / steps
        alive = survival(now)
        alive = probability if step == steps or alive is None else max(alive, probability)
        middle = years * (step - 0.5) / steps
        owed = amount * max(growth, 1.0) ** (middle / years)
        total += max(0.0, previous - alive) * min(1.0, FGC_LIMIT_PER_INSTITUTION / owed) * covered
        previous = alive
    return min(1.0, total)
