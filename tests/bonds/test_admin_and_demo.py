"""Staff screens and demo data."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model

from bonds import demo
from bonds.models import Bond, Index, Issuer, Product, ProjectionSnapshot, RefreshRun
from bonds.refresh import bonds_refresh

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw")
    client.force_login(user)
    return client


# Slow (tests/tiers.py): loads the whole demo, twice.
@pytest.mark.slow
def test_demo_load_is_idempotent_and_covers_every_product_and_index():
    demo.load(stdout=io.StringIO())
    first = list(Bond.objects.order_by("pk").values_list("natural_key", "net_annualized_return"))
    demo.load(stdout=io.StringIO())
    assert list(Bond.objects.order_by("pk").values_list("natural_key", "net_annualized_return")) == first
    assert len(first) > 300
    assert set(Bond.objects.values_list("product", flat=True)) == set(Product.values)
    assert set(Bond.objects.values_list("index", flat=True)) == set(Index.values)
    assert Bond.objects.values("bank").distinct().count() >= 10
    assert not Bond.objects.filter(net_annualized_return__isnull=True).exists()
    assert ProjectionSnapshot.objects.exists()


def test_demo_offers_are_deterministic():
    assert demo.demo_offers(count=50) == demo.demo_offers(count=50)


def test_refresh_run_page_shows_each_providers_outcome(staff_client, fake_source, settings):
    settings.BONDS_FOCUS_BASE_URL = settings.BONDS_SGS_BASE_URL = fake_source.base + "/down"
    settings.BONDS_TESOURO_CSV_URL = fake_source.base + "/down.csv"
    run = bonds_refresh(trigger="admin")
    page = staff_client.get(f"/admin/bonds/refreshrun/{run.pk}/change/").content.decode()
    assert "tesouro" in page and "HTTP 404" in page and "failed" in page


def test_refresh_now_button_runs_a_refresh(staff_client, live_sources):
    listing = staff_client.get("/admin/bonds/refreshrun/").content.decode()
    assert "Refresh now" in listing
    response = staff_client.post("/admin/bonds/refreshrun/refresh-now/", follow=True)
    assert response.status_code == 200
    run = RefreshRun.objects.get()
    assert run.trigger == "admin" and run.status == RefreshRun.Status.OK
    assert f"Refresh #{run.pk} ok" in response.content.decode()
    assert Issuer.objects.get(code=0).sovereign


def test_refresh_now_needs_a_post(staff_client):
    assert staff_client.get("/admin/bonds/refreshrun/refresh-now/").status_code == 405


def test_a_broker_feed_needs_a_url_or_a_file(staff_client):
    from bonds.models import BrokerFeed

    response = staff_client.post(
        "/admin/bonds/brokerfeed/add/", {"name": "empty", "format": "auto", "is_active": "on"}
    )
    assert (
        response.status_code == 200 and "Give the feed a URL or upload a file." in response.content.decode()
    )
    staff_client.post(
        "/admin/bonds/brokerfeed/add/",
        {"name": "other-ponte", "url": "https://other.example/bonds/api/?format=csv", "format": "auto"},
    )
    assert BrokerFeed.objects.get().source == "feed:other-ponte"
