"""GET /bonds/api/ exactly as seed 000: filters, formats, every status, the 5-second rule, caching."""

from __future__ import annotations

import csv
import io
import threading
from datetime import date, timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounts.models import ApiKey
from accounts.services import api_key_revoke, subscription_set
from bonds.access import bonds_access_status, bonds_interval_claim
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer
from bonds.refresh import bonds_refresh
from bonds.rendering import ADDED_FIELDS, BOND_FIELDS

URL = "/bonds/api/"
pytestmark = pytest.mark.django_db


def offer(number: int, **overrides) -> Offer:
    values = {
        "natural_key": f"o{number}",
        "name": f"Bond {number:02d}",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "cdb",
        "index": "cdi*",
        "rate": 1.0,
        "maturity_date": date(2029, 1, 1),
        "fgc_protection": True,
        "rating": "brAA",
        "rating_given": True,
    }
    return Offer(**{**values, **overrides})


@pytest.fixture
def bonds(db) -> list[Bond]:
    offers = [
        offer(1, product="cdb", index="cdi*", rate=1.1),
        offer(2, product="lci", index="ipca+", rate=0.06, tax_free=True, bank=1, bank_name="Banco do Brasil"),
        offer(3, product="lca", index="cdi+", rate=0.01, tax_free=True),
        offer(4, product="deb", index="pre", rate=0.14, fgc_protection=False, bank=341, bank_name="Itaú"),
        offer(5, product="td", index="selic+", rate=0.001, fgc_protection=False, bank=0, bank_name="Tesouro"),
        offer(6, product="cra", index="ipca*", rate=1.1, fgc_protection=False, tax_free=True),
        offer(7, product="lf", index="selic*", rate=1.0, fgc_protection=False, exclusive=True, rating="-"),
        offer(8, product="misc", index="cdi*", rate=0.9, rating=None),
    ]
    bond_offers_upsert(source="test", offers=offers)
    # Distinct net returns fix the documented order: best net return first, nulls last.
    for number, net in zip(range(1, 9), (0.12, 0.13, 0.11, 0.15, 0.10, 0.14, None, 0.09), strict=True):
        Bond.objects.filter(natural_key=f"o{number}").update(
            net_annualized_return=net, real_annualized_return=net
        )
    bond_offers_upsert(source="old", offers=[offer(99)])
    bond_offers_upsert(source="old", offers=[])  # o99 is now inactive
    return list(Bond.objects.all())


@pytest.fixture
def bonds_key(make_key) -> str:
    return make_key(ApiKey.Role.VIEWER)


def get(client, query: str = "", **headers):
    return client.get(URL + ("?" + query if query else ""), **headers)


def names(response) -> list[str]:
    return [bond["name"] for bond in response.json()["bonds"]]


def bearer(key: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


def test_without_a_key_the_reply_is_a_preview_of_at_most_five_bonds(api_client, bonds):
    response = get(api_client)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body) == ["response", "assumptions", "bonds"]
    assert body["response"]["status"] == "preview" and "at most 5" in body["response"]["description"]
    assert names(response) == ["Bond 04", "Bond 06", "Bond 02", "Bond 01", "Bond 03"]


def test_a_subscribed_key_gets_every_active_bond_in_the_documented_order(api_client, bonds, bonds_key):
    response = get(api_client, **bearer(bonds_key))
    assert response.json()["response"]["status"] == "ok"
    # Net return descending, bonds without one last; the inactive o99 is not listed.
    assert names(response) == [f"Bond 0{n}" for n in (4, 6, 2, 1, 3, 5, 8, 7)]


def test_every_bond_has_every_seed_field_with_its_type(api_client, bonds, bonds_key):
    bond = next(b for b in get(api_client, **bearer(bonds_key)).json()["bonds"] if b["name"] == "Bond 07")
    assert list(bond) == [
        "id",
        *BOND_FIELDS,
        "liquidity_days",
        "grace_period_days",
        "net_return_cdi_percent",
        "covered_payment_probability",
        "liquidity_kind",
        *ADDED_FIELDS,
    ]
    assert bond == {
        "id": Bond.objects.get(natural_key="o7").pk,
        "name": "Bond 07",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "lf",
        "index": "selic*",
        "rate": 1.0,
        "fgc_protection": False,
        "tax_free": False,
        "exclusive": True,
        "min_investment": 0.0,
        "maturity_date": "2029-01-01",
        "early_withdrawal": False,
        "rating": "-",
        "payment_probability": None,
        "net_annualized_return": None,
        "real_annualized_return": None,
        "liquidity_days": None,
        "grace_period_days": None,
        "net_return_cdi_percent": None,
        "covered_payment_probability": None,
        "liquidity_kind": None,
        "fgc_covered_share": None,
        "payment_schedule": "",  # written by the returns' recompute, which this fixture does not run
        "first_payment_date": None,
        "horizon_reachable": None,  # known only with a `horizon`
    }


def test_the_key_may_come_in_the_query_string(api_client, bonds, bonds_key):
    assert get(api_client, f"key={bonds_key}").json()["response"]["status"] == "ok"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("product=lci,lca", ["Bond 02", "Bond 03"]),
        ("product=lci&product=lca", ["Bond 02", "Bond 03"]),
        ("index=cdi%2B,ipca%2B", ["Bond 02", "Bond 03"]),
        ("index=cdi+", ["Bond 03"]),  # an unencoded + arrives as a space; read as the + it meant
        ("index=cdi*", ["Bond 01", "Bond 08"]),
        ("bank=1,341", ["Bond 04", "Bond 02"]),
        ("tax_free=1", ["Bond 06", "Bond 02", "Bond 03"]),
        ("tax_free=0&fgc=1", ["Bond 01", "Bond 08"]),
        ("fgc=0&product=deb,td", ["Bond 04", "Bond 05"]),
        ("product=nope,cdb&index=zzz&bank=abc&tax_free=7", ["Bond 01"]),
    ],
)
def test_filters(api_client, bonds, bonds_key, query, expected):
    assert names(get(api_client, query, **bearer(bonds_key))) == expected


def test_values_outside_the_lists_are_ignored(api_client, bonds, bonds_key):
    response = get(api_client, "product=xyz&index=abc&format=xml&locale=fr", **bearer(bonds_key))
    assert response["Content-Type"] == "application/json" and len(names(response)) == 8


def csv_rows(response, delimiter=","):
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=delimiter))


def test_csv_has_the_seed_columns_true_false_and_the_status_header(api_client, bonds, bonds_key):
    response = get(api_client, "format=csv&product=lf,lci", **bearer(bonds_key))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["X-Ponte-Status"] == "ok"
    header, first, second = csv_rows(response)
    assert header == [*BOND_FIELDS, *ADDED_FIELDS]
    assert first[:12] == ["Bond 02", "1", "Banco do Brasil", "lci", "ipca+", "0.06", "TRUE", "TRUE", "FALSE",
                          "0", "2029-01-01", "FALSE"]  # fmt: skip
    assert first[14] == "0.13" and second[12:16] == ["-", "", "", ""]


def test_csv_pt_br_uses_decimal_comma_verdadeiro_and_semicolons(api_client, bonds, bonds_key):
    response = get(api_client, "format=csv&locale=pt-BR&product=lci", **bearer(bonds_key))
    assert response.content.decode().startswith("\ufeffname;bank;bank_name;")
    _header, row = csv_rows(response, delimiter=";")
    assert row[5] == "0,06" and row[6:9] == ["VERDADEIRO", "VERDADEIRO", "FALSO"] and row[14] == "0,13"


def test_locale_has_no_effect_on_json(api_client, bonds, bonds_key):
    response = get(api_client, "locale=pt-BR&product=lci", **bearer(bonds_key))
    assert response.json()["bonds"][0]["rate"] == 0.06


def test_preview_csv_carries_the_status_header(api_client, bonds):
    response = get(api_client, "format=csv")
    assert response["X-Ponte-Status"] == "preview" and len(csv_rows(response)) == 6


def status_of(response) -> str:
    return response.json()["response"]["status"]


def test_unknown_expired_and_revoked_keys_are_unauthorized(api_client, bonds, make_key):
    assert status_of(get(api_client, **bearer("ponte_abcdefgh_not-a-real-key"))) == "unauthorized"
    assert status_of(get(api_client, "key=garbage")) == "unauthorized"
    expired = make_key(ApiKey.Role.VIEWER, expires_at=timezone.now() - timedelta(minutes=1))
    assert status_of(get(api_client, **bearer(expired))) == "unauthorized"
    revoked = make_key(ApiKey.Role.VIEWER)
    api_key_revoke(key=ApiKey.objects.get(prefix=revoked.split("_")[1]))
    response = get(api_client, **bearer(revoked))
    assert status_of(response) == "unauthorized" and response.json()["bonds"] == []
    assert "unknown, expired or revoked" in response.json()["response"]["description"]


def test_a_key_used_outside_its_ip_allow_list_is_unauthorized(api_client, bonds, make_key):
    key = make_key(ApiKey.Role.VIEWER, allowed_ips=["10.0.0.0/8"])
    assert status_of(get(api_client, **bearer(key))) == "unauthorized"
    assert status_of(get(api_client, REMOTE_ADDR="10.1.2.3", **bearer(key))) == "ok"


@pytest.mark.parametrize(
    ("subscription", "status"),
    [(None, "no_subscription"), ("canceled", "no_subscription"), ("past_due", "payment_issue")],
)
def test_subscription_decides_the_status(api_client, bonds, make_account, make_key, subscription, status):
    account = make_account(bonds_subscription=subscription)
    key = make_key(ApiKey.Role.VIEWER, for_account=account)
    response = get(api_client, "format=csv", **bearer(key))
    assert response["X-Ponte-Status"] == status and csv_rows(response) == [[*BOND_FIELDS, *ADDED_FIELDS]]
    assert status_of(get(api_client, **bearer(key))) == status


def test_a_second_keyed_call_within_five_seconds_is_rate_limited(api_client, bonds, bonds_key):
    assert status_of(get(api_client, **bearer(bonds_key))) == "ok"
    second = get(api_client, f"key={bonds_key}")
    assert status_of(second) == "rate_limited" and second.json()["bonds"] == []
    assert "5 seconds" in second.json()["response"]["description"]
    cache.delete(f"bonds:interval:{ApiKey.objects.get(prefix=bonds_key.split('_')[1]).pk}")  # 5 s later
    assert status_of(get(api_client, **bearer(bonds_key))) == "ok"


def test_the_interval_is_per_key(api_client, bonds, make_key):
    first, second = make_key(ApiKey.Role.VIEWER), make_key(ApiKey.Role.VIEWER)
    assert status_of(get(api_client, **bearer(first))) == "ok"
    assert status_of(get(api_client, **bearer(second))) == "ok"


def test_the_interval_claim_is_atomic_under_concurrency():
    barrier = threading.Barrier(16)
    results: list[bool] = []

    def claim() -> None:
        barrier.wait()
        results.append(bonds_interval_claim(key_id=424242))

    threads = [threading.Thread(target=claim) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 15 + [True]


def test_access_status_takes_plain_arguments(bonds, bonds_key, make_account, make_key):
    assert bonds_access_status(plaintext_key=None, client_ip="1.2.3.4") == "preview"
    assert bonds_access_status(plaintext_key="nope", client_ip="1.2.3.4") == "unauthorized"
    assert bonds_access_status(plaintext_key=bonds_key, client_ip="1.2.3.4") == "ok"
    assert bonds_access_status(plaintext_key=bonds_key, client_ip="1.2.3.4") == "rate_limited"
    late = make_key(ApiKey.Role.VIEWER, for_account=make_account(bonds_subscription="past_due"))
    assert bonds_access_status(plaintext_key=late, client_ip="1.2.3.4") == "payment_issue"


def test_a_repeated_preview_runs_no_database_query(api_client, bonds, django_assert_num_queries):
    first = get(api_client, "product=cdb,lci&format=csv")
    with django_assert_num_queries(0):
        again = get(api_client, "product=lci,cdb&format=csv")  # the same query, normalised
    assert again.content == first.content


def test_a_repeated_keyed_query_runs_no_database_query(
    api_client, bonds, bonds_key, settings, django_assert_num_queries
):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    first = get(api_client, "tax_free=1", **bearer(bonds_key))
    # The resolved key (accounts.services), the subscription status and the list itself all come
    # from the cache.
    with django_assert_num_queries(0):
        again = get(api_client, "tax_free=1", **bearer(bonds_key))
    assert again.content == first.content and status_of(again) == "ok"


def test_statuses_without_bonds_run_no_bond_query(api_client, bonds, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert status_of(get(api_client, "key=not-a-ponte-key")) == "unauthorized"


def test_a_refresh_invalidates_cached_replies(api_client, bonds, live_sources):
    assert len(get(api_client, "product=td").json()["bonds"]) == 1
    bonds_refresh()
    assert len(get(api_client, "product=td").json()["bonds"]) == 5  # 1 + 7 Tesouro offers, preview


def test_an_admin_edit_invalidates_cached_replies(api_client, bonds):
    assert names(get(api_client, "product=deb")) == ["Bond 04"]
    bond = Bond.objects.get(natural_key="o4")
    bond.name = "Renamed"
    bond.save()
    assert names(get(api_client, "product=deb")) == ["Renamed"]


def test_errors_come_in_the_bonds_shape(api_client, bonds):
    response = api_client.post(URL, {})
    assert response.status_code == 200
    assert response.json()["response"]["status"] == "method_not_allowed" and response.json()["bonds"] == []
    missing = api_client.get("/bonds/nothing-here")
    assert missing.status_code == 200 and missing.json()["response"]["status"] == "not_found"


def test_a_subscription_change_applies_at_once(api_client, bonds, account, bonds_key):
    subscription_set(account=account, product="bonds", status="past_due")
    assert status_of(get(api_client, **bearer(bonds_key))) == "payment_issue"


def test_a_subscription_change_forgets_the_cached_status(api_client, bonds, account, bonds_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    assert status_of(get(api_client, **bearer(bonds_key))) == "ok"
    subscription = account.subscriptions.get()
    subscription.delete()
    assert status_of(get(api_client, **bearer(bonds_key))) == "no_subscription"
    subscription_set(account=account, product="bonds", status="canceled")
    assert status_of(get(api_client, **bearer(bonds_key))) == "no_subscription"
    subscription_set(account=account, product="bonds", status="active")
    assert status_of(get(api_client, **bearer(bonds_key))) == "ok"


@pytest.mark.django_db(transaction=True)
def test_concurrent_calls_with_one_key_get_exactly_one_ok(live_server, make_account):
    import json
    import urllib.request

    from accounts.services import api_key_create

    account = make_account(name="racer")
    _, key = api_key_create(account=account, role="viewer")
    barrier = threading.Barrier(8)
    seen: list[str] = []

    def call() -> None:
        request = urllib.request.Request(live_server.url + URL, headers={"Authorization": f"Bearer {key}"})
        barrier.wait()
        with urllib.request.urlopen(request, timeout=30) as response:
            seen.append(json.loads(response.read())["response"]["status"])

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == ["ok"] + ["rate_limited"] * 7


def test_the_path_without_a_slash_redirects_with_the_query(api_client):
    response = api_client.get("/bonds/api?format=csv&key=abc")
    assert response.status_code == 302 and response["Location"] == "/bonds/api/?format=csv&key=abc"
