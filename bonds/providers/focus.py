"""BCB Focus market expectations through the Olinda OData API: annual Selic and IPCA medians
(`ExpectativasMercadoAnuais`, the latest survey of each indicator and year) and the Selic target
median per Copom meeting (`ExpectativasMercadoSelic`, the latest survey), `baseCalculo` 0."""

from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import quote

from bonds.finance.copom import meeting_key
from bonds.providers.base import FocusMedians, FocusMeetings, ProviderError, http_get, json_of

WHAT = "BCB Focus (Olinda)"
RESOURCE = "ExpectativasMercadoAnuais"
MEETINGS_RESOURCE = "ExpectativasMercadoSelic"
LOOKBACK_DAYS = 45  # the API has no paging: always filter by survey date


def query_url(base_url: str, *, today: date) -> str:
    """Build the OData URL by hand: `$` literal and spaces as %20 (servers reject `+`)."""
    since = (today - timedelta(days=LOOKBACK_DAYS)).isoformat()
    expression = f"(Indicador eq 'IPCA' or Indicador eq 'Selic') and baseCalculo eq 0 and Data ge '{since}'"
    select = "Indicador,IndicadorDetalhe,Data,DataReferencia,Mediana,baseCalculo"
    return (
        f"{base_url.rstrip('/')}/{RESOURCE}?$filter={quote(expression, safe=quote_safe)}"
        f"&$select={select}&$format=json"
    )


quote_safe = "'(),"


def parse(payload: object) -> FocusMedians:
    if not isinstance(payload, dict) or not isinstance(payload.get("value"), list):
        raise ProviderError(f"{WHAT}: the answer has no 'value' list")
    latest: dict[tuple[str, int], tuple[str, float]] = {}
    for row in payload["value"]:
        if not isinstance(row, dict) or row.get("baseCalculo", 0) != 0 or row.get("IndicadorDetalhe"):
            continue
        indicator = row.get("Indicador")
        if indicator not in {"IPCA", "Selic"}:
            continue
        try:
            year = int(str(row["DataReferencia"]))
            median = float(row["Mediana"])
            survey = str(row["Data"])
            date.fromisoformat(survey)
        except (KeyError, TypeError, ValueError):
            continue
        key = (indicator, year)
        if key not in latest or survey > latest[key][0]:
            latest[key] = (survey, median)
    if not latest:
        raise ProviderError(f"{WHAT}: no Selic or IPCA annual median with baseCalculo 0 in the answer")
    selic = {year: value for (name, year), (_, value) in latest.items() if name == "Selic"}
    ipca = {year: value for (name, year), (_, value) in latest.items() if name == "IPCA"}
    survey_date = date.fromisoformat(max(survey for survey, _ in latest.values()))
    return FocusMedians(
        survey_date=survey_date,
        selic_by_year=dict(sorted(selic.items())),
        ipca_by_year=dict(sorted(ipca.items())),
    )


def fetch(*, base_url: str, timeout: float, today: date) -> FocusMedians:
    response = http_get(query_url(base_url, today=today), timeout=timeout, what=WHAT)
    return parse(json_of(response, what=WHAT))


# --- Selic per Copom meeting --------------------------------------------------------------------


def meetings_url(base_url: str, *, today: date) -> str:
    since = (today - timedelta(days=LOOKBACK_DAYS)).isoformat()
    expression = f"Indicador eq 'Selic' and baseCalculo eq 0 and Data ge '{since}'"
    select = "Indicador,Data,Reuniao,Mediana,baseCalculo"
    return (
        f"{base_url.rstrip('/')}/{MEETINGS_RESOURCE}?$filter={quote(expression, safe=quote_safe)}"
        f"&$select={select}&$format=json"
    )


def parse_meetings(payload: object) -> FocusMeetings:
    """The medians of the latest survey only: each release drops the meetings already held, so an
    older survey could bring back a meeting that is past."""
    if not isinstance(payload, dict) or not isinstance(payload.get("value"), list):
        raise ProviderError(f"{WHAT}: the Selic-per-meeting answer has no 'value' list")
    rows: list[tuple[str, str, float]] = []
    for row in payload["value"]:
        if not isinstance(row, dict) or row.get("baseCalculo", 0) != 0 or row.get("Indicador") != "Selic":
            continue
        try:
            survey, meeting, median = str(row["Data"]), str(row["Reuniao"]).strip(), float(row["Mediana"])
            date.fromisoformat(survey)
        except (KeyError, TypeError, ValueError):
            continue
        if meeting_key(meeting) is not None:
            rows.append((survey, meeting, median))
    if not rows:
        raise ProviderError(f"{WHAT}: no Selic median per Copom meeting with baseCalculo 0 in the answer")
    latest = max(survey for survey, _, _ in rows)
    medians = {meeting: median for survey, meeting, median in rows if survey == latest}
    ordered = dict(sorted(medians.items(), key=lambda item: meeting_key(item[0]) or (0, 0)))
    return FocusMeetings(survey_date=date.fromisoformat(latest), selic_by_meeting=ordered)


def fetch_meetings(*, base_url: str, timeout: float, today: date) -> FocusMeetings:
    what = f"{WHAT} Selic per meeting"
    response = http_get(meetings_url(base_url, today=today), timeout=timeout, what=what)
    return parse_meetings(json_of(response, what=what))
