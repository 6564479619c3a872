"""Guessing instance keys: failed lookups are counted per client address and answered 429 (with
Retry-After, in the instance interface's error shape) past PONTE_INSTANCE_KEY_FAILURE_RATE (10/m by
default; the tests count per hour, so no window ends in the middle of a test)."""

from __future__ import annotations

import secrets

import pytest

from messaging.models import Session


@pytest.fixture
def instance_key(account) -> str:
    return Session.objects.create(account=account, name="main").instance_key


def guess(client, *, address: str = "198.51.100.7", key: str | None = None):
    return client.get(f"/instances/{key or secrets.token_urlsafe(32)}/instance", REMOTE_ADDR=address)


def test_eighty_random_keys_from_one_address_end_in_429_after_the_limit(client, settings, db):
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "10/h"
    statuses = [guess(client).status_code for _ in range(80)]
    assert statuses == [404] * 10 + [429] * 70


def test_the_429_is_in_the_instance_shape_with_retry_after(client, settings, db):
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "2/h"
    guess(client), guess(client)
    response = guess(client)
    assert response.status_code == 429
    body = response.json()
    assert (body["status"], body["error"]) == (429, "TOO_MANY_REQUESTS")
    assert 1 <= int(response["Retry-After"]) <= 3600


def test_a_blocked_address_is_refused_even_with_a_valid_key(client, settings, instance_key):
    # Otherwise a blocked guesser could still tell a right key (200) from a wrong one (429).
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "3/h"
    for _ in range(4):
        guess(client)
    assert guess(client, key=instance_key).status_code == 429
    for path in ("instance", "instance/webhook/statistics"):
        response = client.get(f"/instances/{instance_key}/{path}", REMOTE_ADDR="198.51.100.7")
        assert response.status_code == 429


def test_other_addresses_are_not_affected(client, settings, instance_key):
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "3/h"
    for _ in range(5):
        guess(client, address="198.51.100.7")
    assert guess(client, address="203.0.113.9").status_code == 404
    assert guess(client, address="203.0.113.9", key=instance_key).status_code == 200


def test_keys_that_are_found_are_never_counted(client, settings, instance_key):
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "3/h"
    assert all(guess(client, key=instance_key).status_code == 200 for _ in range(20))
    assert [guess(client).status_code for _ in range(4)] == [404, 404, 404, 429]


def test_the_put_route_counts_failures_too(client, settings, db):
    settings.PONTE_INSTANCE_KEY_FAILURE_RATE = "1/h"
    put = [
        client.put(
            f"/instances/{secrets.token_urlsafe(32)}/instance",
            {"allowWebhook": False},
            content_type="application/json",
            REMOTE_ADDR="198.51.100.7",
        ).status_code
        for _ in range(3)
    ]
    assert put == [404, 429, 429]
