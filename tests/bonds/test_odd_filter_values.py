"""Odd filter values are ignored, never an error (seed 000 §4 rule 2), whatever characters they hold."""

from __future__ import annotations

import pytest

from bonds.filters import parse_filters
from tests.bonds.test_list_api import bonds  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db
URL = "/bonds/api/"


@pytest.mark.parametrize("value", ["%C2%B2", "%D9%A3", "99999999999999999999", "%00", "-1", "1e3"])
def test_an_odd_bank_value_is_ignored_and_the_reply_is_a_preview(api_client, bonds, value) -> None:  # noqa: F811
    response = api_client.get(f"{URL}?bank={value}")
    assert response.status_code == 200
    body = response.json()
    assert body["response"]["status"] == "preview"
    assert len(body["bonds"]) == 5


def test_a_superscript_digit_beside_a_real_bank_code_keeps_the_real_one() -> None:
    assert parse_filters({"bank": ["²,341"]}).banks == (341,)


def test_odd_values_of_every_filter_are_ignored_together(api_client, bonds) -> None:  # noqa: F811
    response = api_client.get(f"{URL}?bank=%C2%B2&product=%00&index=x&tax_free=2&fgc=%F0%9F%98%80&format=xml")
    assert response.status_code == 200
    assert response.json()["response"]["status"] == "preview"
