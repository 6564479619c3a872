"""Sessions: create, list, read, delete, roles, plan cap, pagination, allowed sessions."""

from __future__ import annotations

import pytest

from messaging.models import Session

pytestmark = pytest.mark.django_db


def test_an_admin_key_creates_a_disconnected_session(admin_client):
    response = admin_client.post("/api/sessions", {"name": "support"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "support"
    assert body["status"] == "disconnected"
    assert body["engine"] == "sandbox"
    assert body["jid"] is None
    assert Session.objects.filter(pk=body["id"]).exists()


def test_viewer_and_operator_keys_cannot_create_or_delete(
    keyed_client, viewer_key, operator_key, make_session
):
    session_id = make_session()["id"]
    for key in (viewer_key, operator_key):
        client = keyed_client(key)
        created = client.post("/api/sessions", {"name": "x"}, format="json")
        assert created.status_code == 403
        assert created.json()["error"] == "Forbidden"
        assert client.delete(f"/api/sessions/{session_id}").status_code == 403
    assert Session.objects.count() == 1


def test_a_viewer_can_list_and_read_sessions(keyed_client, viewer_key, make_session):
    session_id = make_session()["id"]
    client = keyed_client(viewer_key)
    assert client.get("/api/sessions").json()["meta"]["total"] == 1
    assert client.get(f"/api/sessions/{session_id}").json()["id"] == session_id


def test_create_requires_a_name(admin_client):
    response = admin_client.post("/api/sessions", {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert response.json()["statusCode"] == 400


def test_create_is_limited_to_five_per_minute(admin_client):
    for index in range(5):
        assert admin_client.post("/api/sessions", {"name": f"s{index}"}, format="json").status_code == 201
    refused = admin_client.post("/api/sessions", {"name": "s6"}, format="json")
    assert refused.status_code == 429
    assert refused.json()["error"] == "TOO_MANY_REQUESTS"
    assert refused.json()["retryAfter"] >= 1
    assert int(refused["Retry-After"]) >= 1
    assert refused["X-RateLimit-Limit"] == "5"
    assert Session.objects.count() == 5


def test_free_plan_allows_one_session(make_account, make_key, keyed_client):
    free = make_account(plan_name="Free")
    client = keyed_client(make_key("admin", for_account=free))
    assert client.post("/api/sessions", {"name": "one"}, format="json").status_code == 201
    refused = client.post("/api/sessions", {"name": "two"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"] == "PLAN_LIMIT_REACHED"
    assert refused.json()["limit"] == 1
    assert free.sessions.count() == 1


def test_deleting_a_session_frees_its_plan_slot(make_account, make_key, keyed_client):
    free = make_account(plan_name="Free")
    client = keyed_client(make_key("admin", for_account=free))
    first = client.post("/api/sessions", {"name": "one"}, format="json").json()["id"]
    deleted = client.delete(f"/api/sessions/{first}")
    assert deleted.json() == {"success": True, "message": f"Session {first} deleted."}
    assert client.post("/api/sessions", {"name": "two"}, format="json").status_code == 201


def test_list_is_a_pagination_envelope(admin_client, account):
    for index in range(5):
        Session.objects.create(account=account, name=f"s{index}")
    first = admin_client.get("/api/sessions?page=1&limit=2").json()
    assert first["meta"] == {"total": 5, "page": 1, "limit": 2, "totalPages": 3}
    assert [s["name"] for s in first["data"]] == ["s0", "s1"]
    last = admin_client.get("/api/sessions?page=3&limit=2").json()
    assert [s["name"] for s in last["data"]] == ["s4"]
    beyond = admin_client.get("/api/sessions?page=4&limit=2").json()
    assert beyond["data"] == []
    assert beyond["meta"]["totalPages"] == 3


@pytest.mark.parametrize("query", ["page=0", "page=-1", "page=x", "limit=0", "limit=101", "limit=abc"])
def test_bad_page_or_limit_is_a_validation_error(admin_client, query):
    response = admin_client.get(f"/api/sessions?{query}")
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


def test_limit_of_one_hundred_is_the_maximum_accepted(admin_client, make_session):
    make_session()
    assert admin_client.get("/api/sessions?limit=100").json()["meta"]["limit"] == 100


def test_empty_list_has_zero_pages(admin_client):
    assert admin_client.get("/api/sessions").json() == {
        "data": [],
        "meta": {"total": 0, "page": 1, "limit": 20, "totalPages": 0},
    }


@pytest.mark.parametrize("spelling", ["qr", "QRCODE", "qrcode", "QR"])
def test_status_filter_understands_the_legacy_qrcode_spelling(admin_client, make_session, spelling):
    waiting = make_session("waiting")["id"]
    make_session("idle")
    admin_client.post(f"/api/sessions/{waiting}/connect")
    listed = admin_client.get(f"/api/sessions?status={spelling}").json()
    assert [s["id"] for s in listed["data"]] == [waiting]
    assert listed["data"][0]["status"] == "qr"


def test_unknown_status_filter_is_refused(admin_client):
    response = admin_client.get("/api/sessions?status=open")
    assert response.status_code == 400
    assert "QRCODE" in response.json()["message"]


def test_instance_key_is_shown_to_admin_keys_only(admin_client, keyed_client, operator_key, make_session):
    created = make_session()
    prefix = Session.objects.get(pk=created["id"]).instance_key_prefix
    assert created["instanceKey"].startswith(prefix) and created["instanceKeyPrefix"] == prefix
    assert admin_client.get(f"/api/sessions/{created['id']}").json()["instanceKeyPrefix"] == prefix
    operator_view = keyed_client(operator_key).get(f"/api/sessions/{created['id']}").json()
    assert "instanceKey" not in operator_view and "instanceKeyPrefix" not in operator_view
    listed = keyed_client(operator_key).get("/api/sessions").json()["data"][0]
    assert "instanceKey" not in listed and "instanceKeyPrefix" not in listed


@pytest.mark.parametrize("bad_id", ["not-a-uuid", "123", "00000000-0000-0000-0000-000000000000"])
def test_unknown_or_malformed_session_ids_are_session_not_found(admin_client, bad_id):
    for method, path in (
        ("get", f"/api/sessions/{bad_id}"),
        ("get", f"/api/sessions/{bad_id}/qrcode"),
        ("post", f"/api/sessions/{bad_id}/logout"),
        ("post", f"/api/sessions/{bad_id}/connect"),
    ):
        response = getattr(admin_client, method)(path)
        assert response.status_code == 404, path
        assert response.json()["error"] == "SESSION_NOT_FOUND"


def test_another_accounts_session_is_not_found(admin_client, make_account, make_key, keyed_client):
    other = make_account()
    foreign = Session.objects.create(account=other, name="theirs")
    assert admin_client.get(f"/api/sessions/{foreign.pk}").status_code == 404
    assert admin_client.get("/api/sessions").json()["meta"]["total"] == 0


def test_a_key_restricted_to_some_sessions_sees_and_touches_only_those(admin_client, make_key, keyed_client):
    mine = admin_client.post("/api/sessions", {"name": "allowed"}, format="json").json()["id"]
    other = admin_client.post("/api/sessions", {"name": "other"}, format="json").json()["id"]
    client = keyed_client(make_key("admin", allowed_sessions=[mine]))
    listed = client.get("/api/sessions").json()
    assert [s["id"] for s in listed["data"]] == [mine]
    assert client.get(f"/api/sessions/{mine}").status_code == 200
    for method, path in (
        ("get", f"/api/sessions/{other}"),
        ("delete", f"/api/sessions/{other}"),
        ("post", f"/api/sessions/{other}/connect"),
        ("post", f"/api/sessions/{other}/logout"),
    ):
        response = getattr(client, method)(path)
        assert response.status_code == 403, path
    assert Session.objects.filter(pk=other).exists()


def test_missing_or_wrong_key_is_401_with_rate_limit_headers(api_client):
    response = api_client.get("/api/sessions")
    assert response.status_code == 401
    assert response.json()["statusCode"] == 401
    assert "X-RateLimit-Limit" in response
    api_client.credentials(HTTP_X_API_KEY="pk_wrong")
    assert api_client.get("/api/sessions").status_code == 401


def test_every_reply_carries_rate_limit_headers(admin_client, make_session):
    session_id = make_session()["id"]
    for response in (
        admin_client.get("/api/sessions"),
        admin_client.get(f"/api/sessions/{session_id}/qrcode"),
        admin_client.post(f"/api/sessions/{session_id}/connect"),
    ):
        assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(response.headers)


def test_deleting_a_connected_session_removes_it_and_its_engine_state(admin_client, connected_session):
    from messaging.models import SandboxDevice

    session = connected_session()
    assert SandboxDevice.objects.filter(session_id=session.pk).exists()
    assert admin_client.delete(f"/api/sessions/{session.pk}").status_code == 200
    assert not Session.objects.filter(pk=session.pk).exists()
    assert not SandboxDevice.objects.filter(session_id=session.pk).exists()
