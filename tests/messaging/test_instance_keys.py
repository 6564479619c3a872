"""Instance keys: stored as digests, shown once at creation and on regeneration, masked otherwise."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client

from accounts.keys import digest_of
from messaging.models import Session


def instance_status(client, key: str) -> int:
    return client.get(f"/instances/{key}/instance").status_code


def test_the_key_is_in_the_creation_reply_only_and_null_on_later_reads(admin_client, make_session):
    created = make_session()
    key = created["instanceKey"]
    assert len(key) >= 32 and created["instanceKeyPrefix"] == key[:8]
    read = admin_client.get(f"/api/sessions/{created['id']}").json()
    assert read["instanceKey"] is None and read["instanceKeyPrefix"] == key[:8]
    listed = admin_client.get("/api/sessions").json()["data"][0]
    assert listed["instanceKey"] is None and listed["instanceKeyPrefix"] == key[:8]


def test_the_key_of_the_creation_reply_opens_the_instance_interface(client, make_session):
    key = make_session()["instanceKey"]
    assert instance_status(client, key) == 200
    assert instance_status(client, key[:-1] + ("A" if key[-1] != "A" else "B")) == 404  # same prefix


def test_the_key_is_stored_only_as_a_digest_with_its_prefix(make_session):
    created = make_session()
    session = Session.objects.get(pk=created["id"])
    assert session.instance_key is None  # a row read back has no key in clear
    assert session.instance_key_digest == digest_of(created["instanceKey"])
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM messaging_session")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert created["instanceKey"] not in stored


def test_regenerating_shows_a_new_key_once_and_the_old_one_stops_working(client, admin_client, make_session):
    created = make_session()
    old = created["instanceKey"]
    response = admin_client.post(f"/api/sessions/{created['id']}/instance-key")
    assert response.status_code == 200
    new = response.json()["instanceKey"]
    assert new and new != old and response.json()["instanceKeyPrefix"] == new[:8]
    assert response.json()["id"] == created["id"]
    assert instance_status(client, old) == 404
    assert instance_status(client, new) == 200
    assert admin_client.get(f"/api/sessions/{created['id']}").json()["instanceKey"] is None


def test_only_admin_keys_may_regenerate_the_instance_key(keyed_client, operator_key, make_session):
    created = make_session()
    response = keyed_client(operator_key).post(f"/api/sessions/{created['id']}/instance-key")
    assert response.status_code == 403
    assert response.json()["statusCode"] == 403
    assert Session.objects.get(pk=created["id"]).instance_key_digest == digest_of(created["instanceKey"])


@pytest.mark.parametrize("bad_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_regenerating_the_key_of_an_unknown_session_is_session_not_found(admin_client, bad_id):
    response = admin_client.post(f"/api/sessions/{bad_id}/instance-key")
    assert response.status_code == 404
    assert response.json()["error"] == "SESSION_NOT_FOUND"


def test_the_regenerate_route_is_declared_in_the_openapi_schema(client, db):
    schema = client.get("/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/sessions/{session_id}/instance-key"]["post"]
    assert operation["operationId"] == "sessions_instance_key_regenerate"
    reply = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert "instanceKey" in schema["components"]["schemas"][reply.rsplit("/", 1)[1]]["properties"]


def test_a_session_created_in_code_carries_its_key_once(account):
    session = Session.objects.create(account=account, name="code")
    assert session.instance_key and session.instance_key_prefix == session.instance_key[:8]
    assert Session.objects.get(pk=session.pk).instance_key is None


def test_the_admin_shows_the_key_masked_and_regenerates_it_once(client, account, django_user_model):
    admin_client = Client()
    admin_client.force_login(django_user_model.objects.create_superuser("staff", "s@example.com", "pw"))
    session = Session.objects.create(account=account, name="staff")
    page = admin_client.get(f"/admin/messaging/session/{session.pk}/change/").content.decode()
    assert f"{session.instance_key_prefix}…" in page and session.instance_key not in page
    response = admin_client.post(
        "/admin/messaging/session/",
        {"action": "regenerate_instance_key", "_selected_action": [str(session.pk)]},
    )
    assert response.status_code == 200 and "shown only this once" in response.content.decode()
    [new_key] = re.findall(r'<code class="shown-once"[^>]*>([^<]+)</code>', response.content.decode())
    assert instance_status(client, new_key) == 200
    assert instance_status(client, session.instance_key) == 404
    _assert_kept_nowhere(admin_client, response, new_key)


def _assert_kept_nowhere(browser: Client, response, secret: str) -> None:
    """Neither a django_session row (as stored and decoded) nor a cookie holds `secret`, and it went to
    no messages cookie: the admin shows it in the reply only."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session as SessionRow

    rows = list(SessionRow.objects.all())
    assert rows
    for row in rows:
        assert secret not in row.session_data and secret not in repr(SessionStore().decode(row.session_data))
    assert "messages" not in response.cookies
    assert all(secret not in cookie.value for cookie in browser.cookies.values())
    assert "no-store" in response["Cache-Control"]


def test_a_session_added_in_the_admin_shows_its_key_in_the_reply_only(client, account, django_user_model):
    admin_client = Client()
    admin_client.force_login(django_user_model.objects.create_superuser("staff", "s@example.com", "pw"))
    form = admin_client.get("/admin/messaging/session/add/").context["adminform"].form
    data = {name: field.initial or "" for name, field in form.fields.items() if field.initial is not None}
    data.update({"account": account.pk, "name": "from the admin"})
    response = admin_client.post("/admin/messaging/session/add/", data)
    assert response.status_code == 200, response.context["adminform"].form.errors
    [key] = re.findall(r'<code class="shown-once"[^>]*>([^<]+)</code>', response.content.decode())
    assert instance_status(client, key) == 200
    _assert_kept_nowhere(admin_client, response, key)
