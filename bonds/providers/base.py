"""What providers return, their error, and the one HTTP helper they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

import requests

from net.guard import outside_call_check

USER_AGENT = "Ponte bond refresh (+https://github.com/ponte)"


class ProviderError(Exception):
    """A provider could not deliver usable data; the message says why, in plain English."""


@dataclass(frozen=True)
class Offer:
    """One offer as a provider sees it, in the Bond's field names."""

    natural_key: str
    name: str
    bank: int
    bank_name: str
    product: str
    index: str
    rate: float
    maturity_date: date
    fgc_protection: bool = False
    tax_free: bool = False
    exclusive: bool = False
    min_investment: float = 0.0
    early_withdrawal: bool = False
    # None: the provider says nothing about the rating (the issuer's rating is used).
    rating: str | None = None
    rating_given: bool = False
    # D+N business days from the redemption order to the money (None: unknown), and the days after
    # the application before a redemption is allowed (None: unknown).
    liquidity_days: int | None = None
    grace_period_days: int | None = None
    # "redemption" (by the issuer, at the contract rate) or "sale" (at the market price); None: Ponte
    # derives it (federal bonds are sold, other offers with early_withdrawal redeemed).
    liquidity_kind: str | None = None
    # Interest paid every N months before maturity, when the source says so (a debenture's schedule);
    # None: everything at maturity, or a coupon Ponte knows from the name (Tesouro, NTN-B, NTN-F).
    coupon_months: int | None = None


@dataclass(frozen=True)
class FocusMedians:
    """Focus annual medians in % a year, per calendar year, and the survey date they come from."""

    survey_date: date
    selic_by_year: dict[int, float] = field(default_factory=dict)
    ipca_by_year: dict[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class FocusMeetings:
    """Focus medians of the Selic target per Copom meeting (`R8/2026` -> % a year), one survey."""

    survey_date: date
    selic_by_meeting: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class CurrentRates:
    """Current rates from SGS, in % a year (None when the series had no value), and the gap between
    the Selic target and the CDI on the latest day both were published (percentage points)."""

    selic_target: float | None
    cdi: float | None
    ipca_12m: float | None
    cdi_gap: float | None = None


@dataclass(frozen=True)
class TrValue:
    """The TR (SGS 226) in force: % for the month that starts on `day` (its `data`; `dataFim` a month on)."""

    day: date
    monthly_pct: float


def http_get(url: str, *, timeout: float, what: str) -> requests.Response:
    """GET with a timeout; any failure becomes a ProviderError naming the source and the reason."""
    outside_call_check("%s: GET %s", what, url)
    try:
        response = requests.get(url, timeout=timeout, headers={"User-Agent": USER_AGENT})
    except requests.Timeout:
        raise ProviderError(f"{what}: no answer within {timeout:g} s from {url}") from None
    except requests.RequestException as exc:
        # requests wraps the cause (name resolution, refused connection...) in retries; name the cause.
        cause = getattr(exc.args[0], "reason", None) if exc.args else None
        reason = f"{type(cause or exc).__name__}: {cause or exc}"
        raise ProviderError(f"{what}: could not connect to {urlsplit(url).netloc} ({reason})") from None
    if response.status_code != 200:
        kind = "an HTML error page" if "html" in response.headers.get("Content-Type", "") else "an error"
        snippet = response.text[:200].strip().replace("\n", " ")
        raise ProviderError(f"{what}: HTTP {response.status_code} with {kind} from {url}: {snippet}")
    return response


def json_of(response: requests.Response, *, what: str) -> object:
    try:
        return response.json()
    except ValueError:
        snippet = response.text[:120].strip().replace("\n", " ")
        raise ProviderError(f"{what}: the answer is not JSON: {snippet!r}") from None
