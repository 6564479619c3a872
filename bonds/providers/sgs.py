"""BCB SGS series for today's rates: Selic target (432), CDI annualized base 252 (4389) and IPCA
over 12 months (13522), each the last published value. Reference §2."""

from __future__ import annotations

from bonds.providers.base import CurrentRates, ProviderError, http_get, json_of

WHAT = "BCB SGS"
SELIC_TARGET, CDI_ANNUALIZED, IPCA_12_MONTHS = 432, 4389, 13522
LAST_N = 5  # the API refuses more than 20


def series_url(base_url: str, code: int) -> str:
    return f"{base_url.rstrip('/')}/bcdata.sgs.{code}/dados/ultimos/{LAST_N}?formato=json"


def parse_last(payload: object, *, code: int) -> float | None:
    """The last `valor` of an SGS answer (`[{"data": "dd/mm/yyyy", "valor": "14.90"}, ...]`)."""
    if not isinstance(payload, list):
        raise ProviderError(f"{WHAT} series {code}: expected a JSON list, got {type(payload).__name__}")
    for row in reversed(payload):
        try:
            return float(str(row["valor"]).replace(",", "."))
        except (KeyError, TypeError, ValueError):
            continue
    return None


def fetch(*, base_url: str, timeout: float) -> CurrentRates:
    values: dict[int, float | None] = {}
    for code in (SELIC_TARGET, CDI_ANNUALIZED, IPCA_12_MONTHS):
        what = f"{WHAT} series {code}"
        values[code] = parse_last(
            json_of(http_get(series_url(base_url, code), timeout=timeout, what=what), what=what), code=code
        )
    if all(value is None for value in values.values()):
        raise ProviderError(f"{WHAT}: no value in any series")
    return CurrentRates(
        selic_target=values[SELIC_TARGET], cdi=values[CDI_ANNUALIZED], ipca_12m=values[IPCA_12_MONTHS]
    )
