"""Providers' offers written to the database: upserted by natural key, their issuers created, offers
gone from a provider's run deactivated (never deleted). The refresh that runs the providers is in
bonds.refresh."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from bonds.models import Bond, Issuer, Product
from bonds.providers.base import Offer
from bonds.rendering import BOND_FIELDS

# What a provider states about an offer: the Bond fields up to `early_withdrawal` and its liquidity;
# the rest (rating, probability, returns) Ponte computes.
OFFER_FIELDS = (
    *BOND_FIELDS[: BOND_FIELDS.index("early_withdrawal") + 1],
    "liquidity_days",
    "grace_period_days",
    "liquidity_kind",
    "coupon_months",
)
# Tesouro Direto has no redemption at the contract rate: the Treasury buys a title back every business
# day at that day's market price, paid the next business day (D+1).
TESOURO_SALE_DAYS = 1


def offer_values(offer: Offer) -> dict:
    """The Bond fields a provider states, with liquidity made explicit: `early_withdrawal` means a
    redemption at the contract rate only; Tesouro Direto is a sale at the market price, D+1 (but
    Tesouro Reserva, redeemed at par); federal bonds from a broker are sold too; other offers with
    early_withdrawal are redeemed."""
    values = {name: getattr(offer, name) for name in OFFER_FIELDS}
    if offer.product == Product.TD and offer.liquidity_kind == "redemption":
        pass  # Tesouro Reserva: redeemed at par, as its terms say (bonds.providers.tesouro)
    elif offer.product == Product.TD:
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
