"""`Idempotency-Key` on the message routes: replays, reuse with another body, keys per API key,
in-flight requests, the 24-hour purge, and the OpenAPI document."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.idempotency import idempotency_purge
from messaging.models import IdempotencyRecord, Message

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"


@pytest.fixture
def session(connected_session):
    return connected_session()


def send(client, session, key: str | None, text: str = "hello", path: str = "send", **body):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    payload = {"sessionId": str(session.pk), "to": CUSTOMER, "text": text, **body}
    return client.post(f"/api/messages/{path}", payload, format="json", **headers)


def test_the_same_key_and_body_replays_the_reply_and_sends_nothing_again(admin_client, session):
    first = send(admin_client, session, "order-1")
    assert first.status_code == 200 and "Idempotent-Replayed" not in first
    again = send(admin_client, session, "order-1")
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Message.objects.filter(session=session, from_me=True).count() == 1


def test_the_same_key_with_another_body_answers_422(admin_client, session):
    send(admin_client, session, "order-2")
    response = send(admin_client, session, "order-2", text="another")
    assert response.status_code == 422
    assert response.json()["error"] == "IDEMPOTENCY_KEY_REUSED"
    assert Message.objects.filter(session=session, from_me=True).count() == 1


def test_the_same_key_on_another_route_answers_422(admin_client, session):
    send(admin_client, session, "order-3")
    response = send(admin_client, session, "order-3", path="location", latitude=1, longitude=2)
    assert response.status_code == 422


def test_an_error_reply_is_replayed_too(admin_client, session):
    first = send(admin_client, session, "bad-1", to="not a number")
    assert first.status_code == 400
    again = send(admin_client, session, "bad-1", to="not a number")
    assert again.status_code == 400 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()


def test_keys_are_scoped_per_api_key(admin_client, session, make_key, api_client):
    send(admin_client, session, "shared")
    api_client.credentials(HTTP_X_API_KEY=make_key("operator"))
    response = send(api_client, session, "shared", text="from another key")
    assert response.status_code == 200 and "Idempotent-Replayed" not in response
    assert Message.objects.filter(session=session, from_me=True).count() == 2


def test_a_request_still_in_flight_answers_409(admin_client, session):
    from accounts.models import ApiKey
    from messaging.idempotency import request_digest

    api_key = ApiKey.objects.get()  # the admin key, the only one
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "hello"}
    IdempotencyRecord.objects.create(
        api_key=api_key, key="busy", body_hash=request_digest("POST", "/api/messages/send", body)
    )
    response = send(admin_client, session, "busy")
    assert response.status_code == 409
    assert response.json()["error"] == "IDEMPOTENCY_KEY_IN_FLIGHT"
    assert not Message.objects.filter(session=session, from_me=True).exists()


def test_a_key_longer_than_255_characters_answers_400(admin_client, session):
    response = send(admin_client, session, "k" * 256)
    assert response.status_code == 400
    assert not Message.objects.filter(session=session, from_me=True).exists()


def test_without_a_key_every_request_sends(admin_client, session):
    send(admin_client, session, None)
    send(admin_client, session, None)
    assert Message.objects.filter(session=session, from_me=True).count() == 2
    assert not IdempotencyRecord.objects.exists()


def test_an_engine_failure_releases_the_key_so_a_retry_sends(admin_client, session):
    from messaging.models import Session

    Session.objects.filter(pk=session.pk).update(engine="messaging.engines.nowhere.Engine")
    assert send(admin_client, session, "retry-me").status_code == 502
    assert not IdempotencyRecord.objects.filter(key="retry-me").exists()
    Session.objects.filter(pk=session.pk).update(engine="")
    response = send(admin_client, session, "retry-me")
    assert response.status_code == 200 and "Idempotent-Replayed" not in response


def test_every_message_route_takes_the_key(admin_client, session):
    poll = {"name": "Q", "options": ["a", "b"]}
    first = send(admin_client, session, "poll-1", path="poll", **poll)
    again = send(admin_client, session, "poll-1", path="poll", **poll)
    assert first.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert again.json()["messageId"] == first.json()["messageId"]


def test_a_key_is_forgotten_after_24_hours(admin_client, session):
    send(admin_client, session, "old")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert idempotency_purge() == 1
    response = send(admin_client, session, "old")
    assert response.status_code == 200 and "Idempotent-Replayed" not in response
    assert Message.objects.filter(session=session, from_me=True).count() == 2


def test_the_openapi_document_declares_the_header_on_message_posts(admin_client):
    schema = admin_client.get("/schema/", {"format": "json"}).json()
    for path in ("/api/messages/send", "/api/messages/poll", "/api/messages/edit", "/api/messages/media"):
        names = [p["name"] for p in schema["paths"][path]["post"].get("parameters", [])]
        assert "Idempotency-Key" in names, path
    responses = schema["paths"]["/api/messages/send"]["post"]["responses"]
    assert "422" in responses and "Idempotent-Replayed" in responses["200"]["headers"]


def test_the_hourly_purge_task_forgets_old_keys(admin_client, session):
    from webhooks.tasks import purge_delivered

    send(admin_client, session, "hourly")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    purge_delivered()
    assert not IdempotencyRecord.objects.exists()


def test_an_undeclared_method_with_an_idempotency_key_answers_405(admin_client, session):
    # Found by the fuzzer: the key's check ran before the method's, so TRACE answered 400.
    response = admin_client.generic(
        "TRACE", "/api/chats/presence", "{}", content_type="application/json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 405


def test_options_on_a_send_route_with_an_idempotency_key_answers_200(admin_client, session):
    response = admin_client.options("/api/messages/send", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 200
    assert "actions" not in response.json()
