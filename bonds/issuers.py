"""Staff changes to an issuer that reach its offers: a new rating carried to the offers that had the old
one, and their payment probabilities recomputed."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from bonds.figures import bond_returns_recompute
from bonds.models import Bond, Issuer
from bonds.replies import data_version_bump


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
