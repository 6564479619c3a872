"""The national rating scale as an order, for the list's `rating_min` filter: brAAA > brAA+ > brAA >
brAA- > brA+ > … > brD, whichever agency's notation an offer carries (S&P `brAA+`, Fitch `AA+(bra)`,
Moody's Local `AA+.br` or the older `Aa1.br`, or a plain `AA+` set on an issuer whose scale is
national). Ratings on the global scale (`BB-`, `Ba2`) are not on this scale and do not meet a minimum.
"""

from __future__ import annotations

# Best first; `D` also stands for a selective or restricted default (`SD`, `RD`).
NOTCHES: tuple[str, ...] = (
    "AAA",
    "AA+",
    "AA",
    "AA-",
    "A+",
    "A",
    "A-",
    "BBB+",
    "BBB",
    "BBB-",
    "BB+",
    "BB",
    "BB-",
    "B+",
    "B",
    "B-",
    "CCC+",
    "CCC",
    "CCC-",
    "CC",
    "C",
    "D",
)
# The canonical spelling of each notch, as the list's `rating_min` documents it.
RATING_MIN_VALUES: tuple[str, ...] = tuple(f"br{notch}" for notch in NOTCHES)
# Moody's older national-scale notation (`Aa1.br`) for the same notches.
_MOODYS = {
    "aaa": "AAA", "aa1": "AA+", "aa2": "AA", "aa3": "AA-", "a1": "A+", "a2": "A", "a3": "A-",
    "baa1": "BBB+", "baa2": "BBB", "baa3": "BBB-", "ba1": "BB+", "ba2": "BB", "ba3": "BB-",
    "b1": "B+", "b2": "B", "b3": "B-", "caa1": "CCC+", "caa2": "CCC", "caa3": "CCC-", "ca": "CC",
}  # fmt: skip
_BY_LOWER = {notch.lower(): notch for notch in NOTCHES} | {"sd": "D", "rd": "D"}


def national_notch(text: str) -> str | None:
    """The notch a national-scale rating names (`brAA-`, `AA-(bra)`, `AA-.br`, `Aa3.br`, or a bare
    `AA-`), or None. Case and surrounding spaces do not matter."""
    lowered = text.strip().lower()
    for prefix, suffix in (("br", ""), ("", "(bra)"), ("", ".br")):
        if lowered.startswith(prefix) and lowered.endswith(suffix) and len(lowered) > len(prefix + suffix):
            core = lowered[len(prefix) : len(lowered) - len(suffix)]
            if core in _BY_LOWER:
                return _BY_LOWER[core]
            if suffix == ".br" and core in _MOODYS:
                return _MOODYS[core]
    return _BY_LOWER.get(lowered)


def spellings_at_or_above(notch: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Lower-cased spellings of the notches at or above `notch`: (those that say they are national,
    bare ones that are national only on a national-scale issuer)."""
    better = NOTCHES[: NOTCHES.index(notch) + 1]
    lowered = {n: [s for s, m in _BY_LOWER.items() if m == n] for n in better}
    national = [
        spelling
        for n in better
        for core in lowered[n]
        for spelling in (f"br{core}", f"{core}(bra)", f"{core}.br")
    ]
    national += [f"{core}.br" for core, n in _MOODYS.items() if n in better]
    bare = [core for n in better for core in lowered[n]]
    return tuple(sorted(set(national))), tuple(sorted(set(bare)))
