"""Status (stories), issue 41 item 9: posting text and media statuses, deleting them, the session's own
list of the last 24 hours and its contacts' statuses from `status` events (the sandbox's inbound route),
the quota, and official channels refused naming the channel."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from messaging.status_models import StatusPost
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


def post(client, path: str, session, **body):
    return client.post(f"/api/status/{path}", {"sessionId": str(session.pk), **body}, format="json")


def listed(client, session, path: str = "") -> list[dict]:
    response = client.get(f"/api/status{path}", {"sessionId": str(session.pk)})
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def inbound(client, session, **body):
    return client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound", {"event": "status", **body}, format="json"
    )


def test_a_text_status_is_posted_and_listed_as_the_sessions_own(admin_client, session):
    response = post(admin_client, "text", session, text="Promoção hoje", backgroundColor="#25d366", font=2)
    assert response.status_code == 200, response.json()
    status = response.json()
    assert (status["type"], status["text"], status["backgroundColor"], status["font"]) == (
        "text",
        "Promoção hoje",
        "#25D366",
        2,
    )
    assert status["fromMe"] is True and status["sender"] == session.jid and status["id"].startswith("3EB0")
    assert [s["id"] for s in listed(admin_client, session)] == [status["id"]]
    assert listed(admin_client, session, "/contacts") == []


def test_a_media_status_is_stored_and_linked(admin_client, client, session):
    encoded = base64.b64encode(IMAGE).decode()
    response = post(admin_client, "media", session, type="image", base64=encoded, caption="Novidade")
    assert response.status_code == 200, response.json()
    status = response.json()
    assert (status["type"], status["text"], status["mimeType"]) == ("image", "Novidade", "image/jpeg")
    assert status["backgroundColor"] is None and status["font"] is None
    served = client.get("/api/media/" + status["mediaUrl"].rsplit("/api/media/", 1)[1])
    assert b"".join(served.streaming_content) == IMAGE


def test_deleting_a_status_removes_it_and_an_unknown_id_is_404(admin_client, session):
    posted = post(admin_client, "text", session, text="Oi", backgroundColor="#000000", font=0).json()
    assert post(admin_client, "delete", session, id=posted["id"]).status_code == 200
    assert listed(admin_client, session) == []
    again = post(admin_client, "delete", session, id=posted["id"])
    assert again.status_code == 404 and again.json()["error"] == "STATUS_NOT_FOUND"


def test_statuses_older_than_24_hours_leave_both_lists(admin_client, session):
    post(admin_client, "text", session, text="Velho", backgroundColor="#000000", font=0)
    assert inbound(admin_client, session, **{"from": CUSTOMER, "text": "Antigo"}).status_code == 201
    StatusPost.objects.update(posted_at=timezone.now() - timedelta(hours=24, seconds=1))
    assert listed(admin_client, session) == [] and listed(admin_client, session, "/contacts") == []


def test_contacts_statuses_arrive_as_status_events_and_are_listed(admin_client, session):
    text = inbound(
        admin_client,
        session,
        **{"from": CUSTOMER, "text": "Bom dia", "backgroundColor": "#112233", "font": 4},
    )
    assert text.status_code == 201, text.json()
    media = {"base64": base64.b64encode(IMAGE).decode(), "mimeType": "image/jpeg"}
    image = inbound(
        admin_client, session, **{"from": CUSTOMER, "type": "image", "media": media, "caption": "c"}
    )
    assert image.status_code == 201, image.json()
    event = Event.objects.filter(session_id=session.pk, name="status").order_by("sequence").first()
    assert event.data["sender"] == CUSTOMER_JID and event.data["text"] == "Bom dia"
    assert (event.data["backgroundColor"], event.data["font"]) == ("#112233", 4)
    statuses = listed(admin_client, session, "/contacts")
    assert [(s["type"], s["text"], s["sender"]) for s in statuses] == [
        ("image", "c", CUSTOMER_JID),
        ("text", "Bom dia", CUSTOMER_JID),
    ]
    assert statuses[0]["mediaUrl"] and statuses[0]["mimeType"] == "image/jpeg"
    revoked = inbound(
        admin_client, session, **{"from": CUSTOMER, "type": "revoked", "statusId": statuses[0]["id"]}
    )
    assert revoked.status_code == 201
    assert [s["type"] for s in listed(admin_client, session, "/contacts")] == ["text"]


@pytest.mark.parametrize(
    "path,body,field",
    [
        ("text", {"text": "x", "backgroundColor": "green", "font": 0}, "backgroundColor"),
        ("text", {"text": "x", "backgroundColor": "#000000", "font": 6}, "font"),
        ("text", {"text": "", "backgroundColor": "#000000", "font": 0}, "text"),
        ("media", {"type": "audio", "base64": "aGk="}, "type"),
        ("media", {"type": "image"}, "exactly one of `url` or `base64`"),
        ("delete", {}, "id"),
    ],
)
def test_bad_status_input_is_400_naming_the_field(admin_client, session, path, body, field):
    response = post(admin_client, path, session, **body)
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"
    assert field in str(response.json())
    assert not StatusPost.objects.exists()


def test_bad_inbound_statuses_are_400(admin_client, session):
    assert inbound(admin_client, session, **{"from": CUSTOMER}).status_code == 400  # no text
    assert inbound(admin_client, session, **{"from": CUSTOMER, "type": "image"}).status_code == 400
    assert inbound(admin_client, session, **{"from": CUSTOMER, "type": "revoked"}).status_code == 400


def test_status_posts_count_against_the_daily_quota(admin_client, session):
    plan = session.account.plan
    plan.messages_per_day = 1
    plan.save()
    assert post(admin_client, "text", session, text="1", backgroundColor="#000000", font=0).status_code == 200
    refused = post(admin_client, "text", session, text="2", backgroundColor="#000000", font=0)
    assert refused.status_code == 429 and StatusPost.objects.count() == 1


def test_status_needs_a_connected_session_an_operator_and_a_session_query(
    admin_client, make_session, viewer_key, session
):
    viewer_client = APIClient()
    viewer_client.credentials(HTTP_X_API_KEY=viewer_key)
    idle = make_session("idle")
    response = admin_client.post(
        "/api/status/text",
        {"sessionId": idle["id"], "text": "x", "backgroundColor": "#000000", "font": 0},
        format="json",
    )
    assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"
    assert (
        post(viewer_client, "text", session, text="x", backgroundColor="#000000", font=0).status_code == 403
    )
    assert viewer_client.get("/api/status", {"sessionId": str(session.pk)}).status_code == 200
    assert admin_client.get("/api/status").status_code == 400


def test_official_channels_cannot_post_statuses(admin_client, official_session, graph):
    cloud = official_session("whatsapp_cloud")
    response = post(admin_client, "text", cloud, text="x", backgroundColor="#000000", font=0)
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "WhatsApp Cloud API" in response.json()["message"] and graph.sends() == []
    media = post(admin_client, "media", cloud, type="image", url="https://files.example.com/a.jpg")
    assert media.status_code == 400 and media.json()["error"] == "OPERATION_NOT_SUPPORTED"
