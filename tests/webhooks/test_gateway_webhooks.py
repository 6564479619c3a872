"""The gateway's registered-webhook endpoints: shapes, validation, roles, limits and SSRF refusals."""

from __future__ import annotations

import pytest

from accounts.models import ApiKey
from messaging.models import Session
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db


def _create(client, session, **overrides):
    body = {"sessionId": str(session.id), "url": "https://93.184.215.14/hook", "events": ["message"]}
    body.update(overrides)
    return client.post("/gateway/webhooks", body, format="json")


def test_create_returns_the_record_without_the_secret(keyed_client, operator_key, session):
    reply = _create(keyed_client(operator_key), session, secret="s3cret", retryCount=3)
    assert reply.status_code == 200, reply.content
    body = reply.json()
    assert body["id"].startswith("wh_")
    assert body["sessionId"] == str(session.id)
    assert body["url"] == "https://93.184.215.14/hook"
    assert body["events"] == ["message"]
    assert body["retryCount"] == 3
    assert body["hasSecret"] is True
    assert "createdAt" in body
    assert "updatedAt" not in body
    assert "secret" not in body and "s3cret" not in reply.content.decode()
    assert Webhook.objects.get(pk=body["id"]).secret == "s3cret"


def test_retry_count_defaults_to_five(keyed_client, admin_key, session):
    assert _create(keyed_client(admin_key), session).json()["retryCount"] == 5


@pytest.mark.parametrize("retry_count", [0, 11, -1, "many"])
def test_retry_count_outside_one_to_ten_is_refused(keyed_client, admin_key, session, retry_count):
    reply = _create(keyed_client(admin_key), session, retryCount=retry_count)
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("retryCount: ")  # the error names its field
    assert not Webhook.objects.exists()


def test_aliases_are_stored_under_canonical_names(keyed_client, admin_key, session):
    events = ["messages", "connection", "session.connected", "qr", "message", "chat_archive"]
    reply = _create(keyed_client(admin_key), session, events=events)
    assert reply.json()["events"] == ["message", "connected", "qr", "chat_archive"]


@pytest.mark.parametrize("events", [["nope"], [], "message", [1]])
def test_events_outside_the_catalogue_are_refused(keyed_client, admin_key, session, events):
    reply = _create(keyed_client(admin_key), session, events=events)
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("events")


@pytest.mark.parametrize("missing", ["sessionId", "url", "events"])
def test_required_fields_are_required(keyed_client, admin_key, session, missing):
    body = {"sessionId": str(session.id), "url": "https://93.184.215.14/hook", "events": ["message"]}
    del body[missing]
    reply = keyed_client(admin_key).post("/gateway/webhooks", body, format="json")
    assert reply.status_code == 400
    assert reply.json() == {"error": f"{missing}: This field is required."}


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",  # loopback
        "http://localhost:8000/hook",  # a name that resolves to loopback
        "http://2130706433/hook",  # loopback as an integer
        "http://10.0.0.5/hook",  # private
        "http://172.16.3.4/hook",  # private
        "http://192.168.1.10/hook",  # private
        "http://169.254.169.254/latest/meta-data/",  # link-local, cloud metadata
        "http://100.64.0.1/hook",  # CGNAT
        "http://[fd00::1]/hook",  # unique-local
        "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped IPv6
        "http://[::1]/hook",  # IPv6 loopback
        "http://0.0.0.0/hook",  # unspecified
        "http://224.0.0.1/hook",  # multicast
        "http://[2002:a9fe:a9fe::]/hook",  # 6to4 form of the metadata address
        "http://[fec0::1]/hook",  # site-local
        "http://198.18.0.1/hook",  # benchmarking
        "ftp://93.184.215.14/hook",  # not http(s)
        "not a url",
    ],
)
def test_unsafe_urls_are_refused_at_registration(keyed_client, admin_key, session, url):
    reply = _create(keyed_client(admin_key), session, url=url)
    assert reply.status_code == 400, url
    assert reply.json()["error"].startswith("url refused: "), reply.json()
    assert not Webhook.objects.exists()


def test_the_allow_list_opens_loopback_for_tests_and_lans(keyed_client, admin_key, session, allow_loopback):
    assert _create(keyed_client(admin_key), session, url="http://127.0.0.1:9/hook").status_code == 200


def test_viewer_reads_but_cannot_manage(keyed_client, admin_key, viewer_key, session):
    created = _create(keyed_client(admin_key), session).json()
    viewer = keyed_client(viewer_key)
    assert _create(viewer, session).status_code == 403
    assert _create(viewer, session).json() == {"error": "Forbidden"}
    assert viewer.get("/gateway/webhooks").json()["data"][0]["id"] == created["id"]
    assert viewer.get(f"/gateway/webhooks/{created['id']}").status_code == 200
    assert (
        viewer.patch(f"/gateway/webhooks/{created['id']}", {"retryCount": 2}, format="json").status_code
        == 403
    )
    assert viewer.delete(f"/gateway/webhooks/{created['id']}").status_code == 403
    assert Webhook.objects.get(pk=created["id"]).retry_count == 5


def test_a_key_without_a_valid_key_is_unauthorized(api_client, session):
    reply = _create(api_client, session)
    assert reply.status_code == 401
    assert reply.json() == {"error": "Unauthorized"}


def test_patch_changes_fields_and_reports_updated_at(keyed_client, operator_key, session):
    client = keyed_client(operator_key)
    created = _create(client, session).json()
    reply = client.patch(
        f"/gateway/webhooks/{created['id']}",
        {"events": ["messages", "message_ack"], "retryCount": 10, "secret": "new"},
        format="json",
    )
    assert reply.status_code == 200, reply.content
    body = reply.json()
    assert body["events"] == ["message", "message_ack"]
    assert body["retryCount"] == 10
    assert body["hasSecret"] is True
    assert body["updatedAt"] >= body["createdAt"]
    assert "secret" not in body


def test_patch_refuses_an_unsafe_url_and_keeps_the_old_one(keyed_client, operator_key, session):
    client = keyed_client(operator_key)
    created = _create(client, session).json()
    reply = client.patch(f"/gateway/webhooks/{created['id']}", {"url": "http://10.1.1.1/"}, format="json")
    assert reply.status_code == 400
    assert client.get(f"/gateway/webhooks/{created['id']}").json()["url"] == created["url"]


def test_delete_answers_deleted_and_then_not_found(keyed_client, operator_key, session):
    client = keyed_client(operator_key)
    created = _create(client, session).json()
    assert client.delete(f"/gateway/webhooks/{created['id']}").json() == {"deleted": True}
    missing = client.get(f"/gateway/webhooks/{created['id']}")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Webhook not found"}


def test_another_accounts_webhook_is_not_found(keyed_client, make_account, make_key, admin_key, session):
    created = _create(keyed_client(admin_key), session).json()
    other = make_key(ApiKey.Role.ADMIN, for_account=make_account(name="other"))
    client = keyed_client(other)
    assert client.get(f"/gateway/webhooks/{created['id']}").status_code == 404
    assert client.delete(f"/gateway/webhooks/{created['id']}").status_code == 404
    assert client.get("/gateway/webhooks").json() == {"data": []}


def test_unknown_or_foreign_session_is_session_not_found(keyed_client, make_account, admin_key):
    foreign = Session.objects.create(account=make_account(name="other"), name="theirs")
    client = keyed_client(admin_key)
    for session_id in (str(foreign.id), "00000000-0000-0000-0000-000000000000", "not-a-uuid"):
        reply = client.post(
            "/gateway/webhooks",
            {"sessionId": session_id, "url": "https://93.184.215.14/", "events": ["qr"]},
            format="json",
        )
        assert reply.status_code == 404
        assert reply.json() == {"error": "Session not found"}


def test_keys_limited_to_sessions_only_touch_those(keyed_client, make_key, admin_key, account, session):
    other_session = Session.objects.create(account=account, name="second")
    limited = make_key(ApiKey.Role.OPERATOR, allowed_sessions=[str(session.id)])
    admin = keyed_client(admin_key)
    mine = _create(admin, session).json()
    theirs = _create(admin, other_session).json()
    client = keyed_client(limited)
    assert [w["id"] for w in client.get("/gateway/webhooks").json()["data"]] == [mine["id"]]
    assert client.get(f"/gateway/webhooks/{theirs['id']}").status_code == 403
    assert _create(client, other_session).status_code == 403
    assert _create(client, session).status_code == 200


def test_list_filters_by_session(keyed_client, admin_key, account, session):
    other_session = Session.objects.create(account=account, name="second")
    client = keyed_client(admin_key)
    _create(client, session)
    theirs = _create(client, other_session).json()
    listed = client.get("/gateway/webhooks", {"sessionId": str(other_session.id)}).json()["data"]
    assert [w["id"] for w in listed] == [theirs["id"]]


def test_the_plans_webhook_cap_is_enforced(keyed_client, make_account, make_key):
    free = make_account(plan_name="Free", name="free")
    key = make_key(ApiKey.Role.ADMIN, for_account=free)
    session = Session.objects.create(account=free, name="s")
    client = keyed_client(key)
    assert _create(client, session).status_code == 200
    reply = _create(client, session)
    assert reply.status_code == 403
    assert reply.json() == {"error": "Webhook limit reached"}
    assert Webhook.objects.filter(account=free).count() == 1


def test_errors_carry_rate_limit_headers(keyed_client, admin_key, session):
    reply = keyed_client(admin_key).get("/gateway/webhooks/wh_nope")
    assert reply.status_code == 404
    assert "X-RateLimit-Limit" in reply
    assert "X-RateLimit-Remaining" in reply
