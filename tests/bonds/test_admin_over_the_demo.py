"""Staff screens over the demo data, loaded once for the module (tests/module_data.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bonds.models import Bond, Issuer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_for_the_module")]


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw")
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "path",
    [
        "/admin/bonds/bond/?product__exact=cdb&index__exact=cdi*&is_active__exact=1",
        "/admin/bonds/bond/?bank_name=Banco+Inter",
        "/admin/bonds/issuer/",
        "/admin/bonds/projectionsnapshot/",
        "/admin/bonds/refreshrun/",
        "/admin/bonds/brokerfeed/",
        "/admin/bonds/brokerfeed/add/",
    ],
)
def test_admin_pages_render(staff_client, path):
    response = staff_client.get(path)
    assert response.status_code == 200


def test_changing_an_issuers_rating_in_the_admin_reaches_its_offers(staff_client):
    issuer = Issuer.objects.get(code=630)  # brBB in the demo
    before = Bond.objects.filter(bank=630, is_active=True).first()
    response = staff_client.post(
        f"/admin/bonds/issuer/{issuer.pk}/change/",
        {
            "code": 630,
            "name": issuer.name,
            "rating": "brAAA",
            "rating_scale": "national",
            "rating_agency": "S&P",
        },
    )
    assert response.status_code == 302
    after = Bond.objects.get(pk=before.pk)
    assert after.rating == "brAAA" and after.payment_probability > before.payment_probability


def test_editing_a_bond_in_the_admin_recomputes_its_returns(staff_client):
    bond = Bond.objects.filter(index="pre", tax_free=False, is_active=True).first()
    fields = ("source", "natural_key", "name", "bank", "bank_name", "product", "index", "min_investment")
    data = {field: getattr(bond, field) for field in (*fields, "maturity_date", "rating")}
    data.update(rate=bond.rate + 0.02, is_active="on", fgc_protection="on" if bond.fgc_protection else "")
    data = {key: value for key, value in data.items() if value not in ("", None)}
    response = staff_client.post(f"/admin/bonds/bond/{bond.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Bond.objects.get(pk=bond.pk).net_annualized_return > bond.net_annualized_return
