"""Writes and decisions: who may see the bond list (and the 5-second rule), upserting offers by
natural key, the day's projections, and recomputing returns. The refresh that runs the providers
is in bonds.refresh."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiKey, Subscription
from accounts.services import api_key_authenticate
from bonds import finance, statuses
from bonds.models import Bond, Issuer, Product, ProjectionSnapshot
from bonds.providers.base import CurrentRates, FocusMedians, FocusMeetings, Offer
from bonds.providers.copom import CopomCalendar
from bonds.rendering import BOND_FIELDS
from bonds.selectors import custody_fee_for, data_version_bump, projection_latest, projection_of
from core.errors import ApplicationError

# --- Access -----------------------------------------------------------------------------------------


def bonds_interval_claim(*, key_id: int) -> bool:
    """Claim this key's call slot for BONDS_KEY_INTERVAL_SECONDS. `cache.add` is atomic (SET NX on
    Redis, a lock in local memory), so of concurrent calls with one key exactly one wins."""
    interval = settings.BONDS_KEY_INTERVAL_SECONDS
    if interval <= 0:
        return True
    return cache.add(f"bonds:interval:{key_id}", 1, timeout=interval)


SUBSCRIPTION_CACHE_SECONDS = 60
_NO_SUBSCRIPTION = "none"


def subscription_cache_key(account_id: int) -> str:
    return f"bonds:subscription:{account_id}"


# Each process also remembers a status for a second, which spares a keyed call the Redis round trip.
_LOCAL_SUBSCRIPTION_SECONDS = 1.0
_local_subscriptions: dict[int, tuple[float, str]] = {}


def subscription_forget(*, account_id: int) -> None:
    cache.delete(subscription_cache_key(account_id))
    _local_subscriptions.pop(account_id, None)


def subscription_memos_clear() -> None:
    """Forget this process's remembered statuses (the Redis or local cache is cleared apart)."""
    _local_subscriptions.clear()


def subscription_status(*, account_id: int) -> str | None:
    """The account's bonds subscription status (None: no subscription), cached. Every change through
    the ORM (subscription_set, the admin) forgets the cached value at once (signals in bonds.apps);
    other processes see it within a second with Redis, and the timeout bounds a change made by other
    means (or in another process with a per-process cache)."""
    now = time.monotonic()
    remembered = _local_subscriptions.get(account_id)
    if remembered is not None and now - remembered[0] < _LOCAL_SUBSCRIPTION_SECONDS:
        cached: str | None = remembered[1]
    else:
        cached = cache.get(subscription_cache_key(account_id))
        if cached is None:
            status = (
                Subscription.objects.filter(account_id=account_id, product=Subscription.Product.BONDS)
                .values_list("status", flat=True)
                .first()
            )
            cached = status or _NO_SUBSCRIPTION
            cache.set(subscription_cache_key(account_id), cached, SUBSCRIPTION_CACHE_SECONDS)
        _local_subscriptions[account_id] = (now, cached)
    return None if cached == _NO_SUBSCRIPTION else cached


def bonds_status_for_key(*, key: ApiKey) -> str:
    """The status of an authenticated key: its account's bonds subscription decides, then the
    interval. Only calls that would get bonds start the interval, so a wrong subscription is reported
    as such and not hidden behind `rate_limited`."""
    subscription = subscription_status(account_id=key.account_id)
    if subscription == Subscription.Status.PAST_DUE:
        return statuses.PAYMENT_ISSUE
    if subscription != Subscription.Status.ACTIVE:
        return statuses.NO_SUBSCRIPTION
    if not bonds_interval_claim(key_id=key.pk):
        return statuses.RATE_LIMITED
    return statuses.OK


def bonds_access_status(*, plaintext_key: str | None, client_ip: str) -> str:
    """The list status for a presented key (None: no key → preview). An unknown, expired or revoked
    key, or one used from outside its IP allow-list, is `unauthorized`."""
    if not plaintext_key:
        return statuses.PREVIEW
    try:
        key = api_key_authenticate(plaintext=plaintext_key, client_ip=client_ip)
    except ApplicationError:
        return statuses.UNAUTHORIZED
    return bonds_status_for_key(key=key)


# --- Upserting offers -------------------------------------------------------------------------------

# What a provider states about an offer: the Bond fields up to `early_withdrawal` and its liquidity;
# the rest (rating, probability, returns) Ponte computes.
OFFER_FIELDS = (
    *BOND_FIELDS[: BOND_FIELDS.index("early_withdrawal") + 1],
    "liquidity_days",
    "grace_period_days",
    "liquidity_kind",
    "coupon_months",
)
# Federal bonds are the sovereign's whoever sells them: Tesouro Direto and federal bonds bought from a
# broker (`tpf`) have the domestic risk-free payment probability, never the broker's rating.
SOVEREIGN_PRODUCTS = frozenset({Product.TD, Product.TPF})
# Tesouro Direto has no redemption at the contract rate: the Treasury buys a title back every business
# day at that day's market price, paid the next business day (D+1).
TESOURO_SALE_DAYS = 1


def offer_values(offer: Offer) -> dict:
    """The Bond fields a provider states, with liquidity made explicit: `early_withdrawal` means a
    redemption at the contract rate only; Tesouro Direto is a sale at the market price, D+1; federal
    bonds from a broker are sold too; other offers with early_withdrawal are redeemed."""
    values = {name: getattr(offer, name) for name in OFFER_FIELDS}
    if offer.product == Product.TD:
        values.update(early_withdrawal=False, liquidity_kind="sale")
        if values["liquidity_days"] is None:
            values["liquidity_days"] = TESOURO_SALE_DAYS
    elif values["liquidity_kind"] is None:
        if offer.product == Product.TPF and (offer.early_withdrawal or offer.liquidity_days is not None):
            values.update(early_withdrawal=False, liquidity_kind="sale")
        elif offer.early_withdrawal:
            values["liquidity_kind"] = "redemption"
    return values


@dataclass
class UpsertCounts:
    offers: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deactivated: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def issuers_ensure(*, offers: list[Offer]) -> dict[int, Issuer]:
    names = {offer.bank: offer.bank_name for offer in offers}
    existing = {issuer.code: issuer for issuer in Issuer.objects.filter(code__in=names)}
    missing = [Issuer(code=code, name=name) for code, name in names.items() if code not in existing]
    if missing:
        Issuer.objects.bulk_create(missing, ignore_conflicts=True)
        existing = {issuer.code: issuer for issuer in Issuer.objects.filter(code__in=names)}
    return existing


@transaction.atomic
def bond_offers_upsert(*, source: str, offers: list[Offer]) -> UpsertCounts:
    """Upsert a provider's successful run by natural key. Offers of `source` missing from it become
    inactive (kept, never deleted); a reappearing offer becomes active again."""
    now = timezone.now()
    counts = UpsertCounts(offers=len(offers))
    existing = {bond.natural_key: bond for bond in Bond.objects.filter(source=source)}
    issuers = issuers_ensure(offers=offers)
    to_create: list[Bond] = []
    to_update: list[Bond] = []
    seen: set[str] = set()
    for offer in offers:
        if offer.natural_key in seen:
            continue
        seen.add(offer.natural_key)
        issuer = issuers[offer.bank]
        values = offer_values(offer)
        values["rating"] = offer.rating if offer.rating_given else issuer.rating
        bond = existing.get(offer.natural_key)
        if bond is None:
            to_create.append(
                Bond(source=source, natural_key=offer.natural_key, issuer=issuer, first_seen_at=now, **values)
            )
            continue
        if (
            bond.is_active
            and bond.issuer_id == issuer.pk
            and all(getattr(bond, name) == value for name, value in values.items())
        ):
            counts.unchanged += 1
            continue
        for name, value in values.items():
            setattr(bond, name, value)
        bond.issuer, bond.is_active, bond.last_seen_at, bond.updated_at = issuer, True, now, now
        to_update.append(bond)
    Bond.objects.bulk_create(to_create, batch_size=500)
    Bond.objects.bulk_update(
        to_update,
        [*OFFER_FIELDS, "rating", "issuer", "is_active", "last_seen_at", "updated_at"],
        batch_size=500,
    )
    gone = [bond.pk for key, bond in existing.items() if key not in seen and bond.is_active]
    if gone:
        Bond.objects.filter(pk__in=gone).update(is_active=False, updated_at=now)
    Bond.objects.filter(source=source, is_active=True).update(last_seen_at=now)
    counts.created, counts.updated, counts.deactivated = len(to_create), len(to_update), len(gone)
    return counts


# --- Projections and returns ------------------------------------------------------------------------


def calendar_merged(stored: dict[str, str], calendar: CopomCalendar) -> dict[str, str]:
    """The stored Copom calendar with every year BCB now lists whole replaced by what it lists."""
    years = set(calendar.years)
    kept = {code: day for code, day in stored.items() if int(code[-4:]) not in years}
    read = {code: day.isoformat() for code, day in calendar.meetings.items()}
    return dict(sorted({**kept, **read}.items(), key=lambda item: finance.meeting_key(item[0]) or (0, 0)))


@transaction.atomic
def projection_snapshot_record(
    *,
    day: date,
    focus_medians: FocusMedians | None,
    current: CurrentRates | None,
    meetings: FocusMeetings | None = None,
    calendar: CopomCalendar | None = None,
) -> tuple[ProjectionSnapshot, bool]:
    """Record the day's projections; a source that failed keeps the previous snapshot's figures.
    Returns the snapshot and whether anything changed."""
    previous = ProjectionSnapshot.objects.filter(date__lte=day).order_by("-date").first()
    names = (
        "selic_by_year",
        "ipca_by_year",
        "focus_date",
        "selic_by_meeting",
        "meetings_focus_date",
        "selic_current",
        "cdi_current",
        "ipca_12m",
        "cdi_gap",
        "tr_monthly",
        "copom_calendar",
    )
    values = {name: getattr(previous, name) if previous else None for name in names}
    for name in ("selic_by_year", "ipca_by_year", "selic_by_meeting", "copom_calendar"):
        values[name] = values[name] or {}
    if calendar is not None:
        values["copom_calendar"] = calendar_merged(values["copom_calendar"], calendar)
    if meetings is not None:
        values["selic_by_meeting"] = dict(meetings.selic_by_meeting)
        values["meetings_focus_date"] = meetings.survey_date
    if focus_medians is not None:
        values["selic_by_year"] = {str(year): value for year, value in focus_medians.selic_by_year.items()}
        values["ipca_by_year"] = {str(year): value for year, value in focus_medians.ipca_by_year.items()}
        values["focus_date"] = focus_medians.survey_date
    if current is not None:
        for name, value in (
            ("selic_current", current.selic_target),
            ("cdi_current", current.cdi),
            ("ipca_12m", current.ipca_12m),
            ("cdi_gap", current.cdi_gap),
            ("tr_monthly", current.tr_monthly),
        ):
            if value is not None:
                values[name] = value
    snapshot = ProjectionSnapshot.objects.filter(date=day).first()
    if snapshot is not None and all(getattr(snapshot, name) == value for name, value in values.items()):
        return snapshot, False
    snapshot, _ = ProjectionSnapshot.objects.update_or_create(date=day, defaults=values)
    return snapshot, True


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# What bond_figures computes, in its order: the Bond fields the recompute writes.
FIGURE_FIELDS = (
    "net_annualized_return",
    "real_annualized_return",
    "payment_probability",
    "net_return_cdi_percent",
    "covered_payment_probability",
)


def bond_probability(*, bond: Bond, years: float) -> float | None:
    """The issuer's payment probability at maturity; federal bonds the sovereign's (1.0)."""
    issuer = bond.issuer
    sovereign = bond.product in SOVEREIGN_PRODUCTS or (issuer is not None and issuer.sovereign)
    # The issuer's rating (copied to the bond) is read on the issuer's scale; a feed's own rating by
    # its notation.
    national = (
        issuer is not None and bond.rating == issuer.rating and issuer.rating_scale == Issuer.Scale.NATIONAL
    )
    return finance.payment_probability(bond.rating, years, sovereign=sovereign, national=national)


def bond_figures(*, bond: Bond, today: date, projection: finance.Projection | None) -> tuple:
    """The FIGURE_FIELDS of a bond bought today (for its minimum investment): net, real, payment
    probability, tax-equivalent rate and the probability within the FGC limit."""
    result = finance.offer_returns(
        index=bond.index,
        rate=bond.rate,
        start=today,
        maturity=bond.maturity_date,
        projection=projection,
        tax_free=bond.tax_free,
        custody_fee=custody_fee_for(
            product=bond.product, index=bond.index, amount=bond.min_investment, name=bond.name
        ),
        coupon=finance.coupon_terms(name=bond.name, index=bond.index, coupon_months=bond.coupon_months),
    )
    years = max(0, (bond.maturity_date - today).days) / 365.25
    probability = bond_probability(bond=bond, years=years)
    covered = finance.covered_payment_probability(probability, fgc_protection=bond.fgc_protection)
    return (
        _round(result.net_annualized),
        _round(result.real_annualized),
        _round(probability),
        _round(result.cdi_equivalent),
        _round(covered),
    )


@transaction.atomic
def bond_returns_recompute(
    *, today: date | None = None, snapshot: ProjectionSnapshot | None = None, pks: list[int] | None = None
) -> int:
    """Recompute every active bond's (or only `pks`') returns and payment probabilities; write only
    what changed. Returns the number of bonds whose figures changed."""
    today = today or timezone.localdate()
    projection = projection_of(snapshot if snapshot is not None else projection_latest())
    now = timezone.now()
    changed = []
    bonds = Bond.objects.filter(is_active=True).select_related("issuer")
    for bond in bonds if pks is None else bonds.filter(pk__in=pks):
        figures = bond_figures(bond=bond, today=today, projection=projection)
        if figures == tuple(getattr(bond, name) for name in FIGURE_FIELDS):
            continue
        for name, value in zip(FIGURE_FIELDS, figures, strict=True):
            setattr(bond, name, value)
        bond.returns_computed_on, bond.updated_at = today, now
        changed.append(bond)
    Bond.objects.bulk_update(changed, [*FIGURE_FIELDS, "returns_computed_on", "updated_at"], batch_size=500)
    return len(changed)


@transaction.atomic
def issuer_rating_apply(*, issuer: Issuer, previous: str | None) -> int:
    """After staff change an issuer's rating: offers that carried the previous issuer rating (not one
    of their own from a feed) take the new one, and payment probabilities are recomputed."""
    bonds = Bond.objects.filter(issuer=issuer)
    bonds = bonds.filter(rating__isnull=True) if previous is None else bonds.filter(rating=previous)
    changed = bonds.update(rating=issuer.rating, updated_at=timezone.now())
    if changed:
        bond_returns_recompute()
        data_version_bump()
    return changed
