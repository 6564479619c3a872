"""Bad input in the bonds admin forms is a field error, never a 500 from the returns recomputed after
the save or from a change list reading a malformed projection."""

from __future__ import annotations

import datetime as dt

import pytest

from bonds.models import Bond, ProjectionSnapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def bond() -> Bond:
    today = dt.date.today()
    ProjectionSnapshot.objects.create(
        date=today,
        selic_by_year={str(today.year + n): 12.0 for n in range(6)},
        ipca_by_year={str(today.year + n): 4.0 for n in range(6)},
        selic_current=12.0,
        ipca_12m=4.0,
    )
    return Bond.objects.create(
        source="demo",
        natural_key="cdb-pre-1",
        name="CDB pre",
        bank=1,
        bank_name="Bank",
        product="cdb",
        index="cdi*",
        rate=0.12,
        maturity_date=dt.date.today() + dt.timedelta(days=3 * 365),
    )


def _bond_post(admin_client, bond: Bond, **fields):
    data = {
        "source": bond.source,
        "natural_key": bond.natural_key,
        "name": bond.name,
        "bank": bond.bank,
        "bank_name": bond.bank_name,
        "product": bond.product,
        "index": bond.index,
        "rate": bond.rate,
        "min_investment": 0,
        "maturity_date": bond.maturity_date.isoformat(),
        "is_active": "on",
        "first_seen_at_0": "2026-01-01",
        "first_seen_at_1": "00:00:00",
        "last_seen_at_0": "2026-01-01",
        "last_seen_at_1": "00:00:00",
        **fields,
    }
    return admin_client.post(f"/admin/bonds/bond/{bond.pk}/change/", data)


def test_a_rate_no_return_can_be_computed_from_is_a_field_error(admin_client, bond):
    reply = _bond_post(admin_client, bond, rate="99999999999999999999")
    assert reply.status_code == 200
    assert "No" in reply.context["adminform"].form.errors["rate"][0]
    bond.refresh_from_db()
    assert bond.rate == 0.12


def test_a_sane_rate_is_saved_with_its_returns(admin_client, bond):
    assert _bond_post(admin_client, bond, rate="0.13").status_code == 302
    bond.refresh_from_db()
    assert bond.rate == 0.13 and bond.net_annualized_return is not None


def _snapshot_post(admin_client, **fields):
    data = {
        "date": "2026-11-23",
        "selic_by_year": '{"2027": 12.25}',
        "ipca_by_year": '{"2027": 4.0}',
        "created_at_0": "2026-11-23",
        "created_at_1": "10:00:00",
        **fields,
    }
    return admin_client.post("/admin/bonds/projectionsnapshot/add/", data)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("selic_by_year", "[12.25, 10.5]", "Give an object of years"),
        ("selic_by_year", '{"next year": 12.25}', "is not a year"),
        ("ipca_by_year", '{"2027": "four"}', "is not a percentage"),
        ("ipca_by_year", '{"2027": 1e300}', "is not a percentage"),
        ("selic_current", "1e300", "Give a percentage"),
    ],
)
def test_a_malformed_projection_is_a_field_error(admin_client, field, value, error):
    reply = _snapshot_post(admin_client, **{field: value})
    assert reply.status_code == 200
    assert error in reply.context["adminform"].form.errors[field][0]
    assert not ProjectionSnapshot.objects.exists()
    assert admin_client.get("/admin/bonds/projectionsnapshot/").status_code == 200


def test_a_projection_of_years_and_percentages_is_saved(admin_client):
    reply = _snapshot_post(admin_client, selic_current="15")
    assert reply.status_code == 302, reply.context["adminform"].form.errors
    assert ProjectionSnapshot.objects.get().selic_by_year == {"2027": 12.25}


def test_a_nul_in_a_bond_filter_reopens_the_list_flagged(admin_client):
    reply = admin_client.get("/admin/bonds/bond/?bank_name=%00")
    assert reply.status_code == 302 and reply["Location"].endswith("?e=1")
