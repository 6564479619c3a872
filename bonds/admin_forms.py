"""Admin forms of bonds and projection snapshots: values the returns cannot be computed from are field
errors, not a 500 when the returns are recomputed after the save."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from bonds.figures import bond_figures
from bonds.models import Bond, ProjectionSnapshot
from bonds.projections import projection_latest, projection_of

# % a year: wider than any projection or offer seen, narrow enough to keep compounding finite.
RATE_PERCENT_RANGE = (-100.0, 10_000.0)


class BondForm(forms.ModelForm):
    class Meta:
        model = Bond
        fields = "__all__"  # noqa: DJ007 (the admin picks the fields; this form only adds a check)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        # The admin recomputes the bond's returns after saving it (BondAdmin.save_model): try it first.
        bond = self.instance
        for name, value in cleaned.items():
            setattr(bond, name, value)
        try:
            figures = bond_figures(
                bond=bond, today=timezone.localdate(), projection=projection_of(projection_latest())
            )
        except (ArithmeticError, ValueError) as error:
            raise ValidationError(
                {"rate": f"No return can be computed from this rate and maturity ({error})."}
            ) from None
        if any(isinstance(value, float) and not math.isfinite(value) for value in figures):
            raise ValidationError({"rate": "No finite return can be computed from this rate and maturity."})
        return cleaned


def _yearly_percentages(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ValidationError('Give an object of years and % a year, e.g. {"2027": 12.25, "2028": 10.5}.')
    low, high = RATE_PERCENT_RANGE
    for year, percent in value.items():
        if not (str(year).isdigit() and 1900 <= int(year) <= 2200):
            raise ValidationError(f'{year!r} is not a year (e.g. "2027").')
        if isinstance(percent, bool) or not isinstance(percent, int | float) or not low < percent < high:
            raise ValidationError(f"{year}: {percent!r} is not a percentage between {low:g} and {high:g}.")
    return {str(year): percent for year, percent in value.items()}


class ProjectionSnapshotForm(forms.ModelForm):
    class Meta:
        model = ProjectionSnapshot
        fields = "__all__"  # noqa: DJ007 (the admin picks the fields; this form only adds checks)

    def clean_selic_by_year(self) -> dict[str, float]:
        return _yearly_percentages(self.cleaned_data["selic_by_year"])

    def clean_ipca_by_year(self) -> dict[str, float]:
        return _yearly_percentages(self.cleaned_data["ipca_by_year"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        low, high = RATE_PERCENT_RANGE
        for name in ("selic_current", "cdi_current", "ipca_12m"):
            value = cleaned.get(name)
            if value is not None and not low < value < high:
                self.add_error(name, f"Give a percentage between {low:g} and {high:g}.")
        return cleaned
