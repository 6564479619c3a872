"""BCB SGS series for today's rates: Selic target (432), CDI annualized base 252 (4389) and IPCA
over 12 months (13522), each the last published value, and the target - CDI gap on the latest day
both series have; and, as a source of its own (`sgs-tr`), the TR in force (226, % a month, with its
date) for the savings-account benchmark."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from bonds.providers.base import CurrentRates, ProviderError, TrValue, http_get, json_of

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
    )


# --- TR (series 226), the poupança benchmark's own source ---------------------------------------------

TR_DAYS_BACK = 40  # a window of dates, not `ultimos`: the TR of a day is published ahead of it


def tr_url(base_url: str, today: date) -> str:
    start = (today - timedelta(days=TR_DAYS_BACK)).strftime("%d/%m/%Y")
    return (
        f"{base_url.rstrip('/')}/bcdata.sgs.{TR}/dados?formato=json"
        f"&dataInicial={start}&dataFinal={today:%d/%m/%Y}"
    )


def parse_tr(payload: object, *, today: date) -> TrValue:
    """The TR in force for a deposit made `today`: SGS 226 gives one row per day, each the TR (% for
    the month from `data` to `dataFim`), e.g. `{"data":"18/11/2026","dataFim":"18/12/2026","valor":
    "0.1698"}`; the latest row starting on or before today (else the first one published)."""
    if not isinstance(payload, list):
        raise ProviderError(f"{WHAT} series {TR}: expected a JSON list, got {type(payload).__name__}")
    rows = sorted(parse_by_day(payload).items())
    if not rows:
        raise ProviderError(f"{WHAT} series {TR}: no value")
    started = [row for row in rows if row[0] <= today]
    day, value = started[-1] if started else rows[0]
    return TrValue(day=day, monthly_pct=value)


def fetch_tr(*, base_url: str, timeout: float, today: date) -> TrValue:
    what = f"{WHAT} series {TR}"
    return parse_tr(
        json_of(http_get(tr_url(base_url, today), timeout=timeout, what=what), what=what), today=today
    )
