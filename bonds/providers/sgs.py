"""BCB SGS series for today's rates: Selic target (432), CDI annualized base 252 (4389) and IPCA
over 12 months (13522), each the last published value, and the target - CDI gap on the latest day
both series have; TR (226, % a month) for the savings-account benchmark, optional (a failure leaves
it unknown and the rest stands)."""

from __future__ import annotations

from datetime import date, datetime

from bonds.providers.base import CurrentRates, ProviderError, http_get, json_of

WHAT = "BCB SGS"
SELIC_TARGET, CDI_ANNUALIZED, IPCA_12_MONTHS, TR = 432, 4389, 13522, 226
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


def parse_by_day(payload: object) -> dict[date, float]:
    """Every dated value of an SGS answer (rows that do not parse are skipped)."""
    values: dict[date, float] = {}
    for row in payload if isinstance(payload, list) else []:
        try:
            day = datetime.strptime(str(row["data"]), "%d/%m/%Y").date()  # noqa: DTZ007 (a date)
            values[day] = float(str(row["valor"]).replace(",", "."))
        except (KeyError, TypeError, ValueError):
            continue
    return values


def observed_gap(target: dict[date, float], cdi: dict[date, float]) -> float | None:
    """Selic target - CDI (percentage points) on the latest day both were published."""
    common = set(target) & set(cdi)
    if not common:
        return None
    day = max(common)
    return round(target[day] - cdi[day], 6)


def fetch(*, base_url: str, timeout: float) -> CurrentRates:
    payloads: dict[int, object] = {}
    values: dict[int, float | None] = {}
    for code in (SELIC_TARGET, CDI_ANNUALIZED, IPCA_12_MONTHS):
        what = f"{WHAT} series {code}"
        payloads[code] = json_of(http_get(series_url(base_url, code), timeout=timeout, what=what), what=what)
        values[code] = parse_last(payloads[code], code=code)
    if all(value is None for value in values.values()):
        raise ProviderError(f"{WHAT}: no value in any series")
    return CurrentRates(
        selic_target=values[SELIC_TARGET],
        cdi=values[CDI_ANNUALIZED],
        ipca_12m=values[IPCA_12_MONTHS],
        cdi_gap=observed_gap(parse_by_day(payloads[SELIC_TARGET]), parse_by_day(payloads[CDI_ANNUALIZED])),
        tr_monthly=_tr(base_url, timeout),
    )


def _tr(base_url: str, timeout: float) -> float | None:
    what = f"{WHAT} series {TR}"
    try:
        return parse_last(
            json_of(http_get(series_url(base_url, TR), timeout=timeout, what=what), what=what), code=TR
        )
    except ProviderError:
        return None  # the benchmark then assumes the previous TR, or none
