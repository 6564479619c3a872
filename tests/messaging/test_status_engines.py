# ruff: noqa: F811 - the conformance fixtures are imported and used as arguments
"""Status (stories) and channels (newsletters) on every engine of the conformance suite (the in-process
sandbox, and on PostgreSQL the sandbox hosted by real `run_engine` processes): posts, deletes and the
channel operations travel as engine commands, and a contact's status comes back as a `status` event
that the web side lists."""

from __future__ import annotations

import base64

import pytest

from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.test_engine_conformance import (  # noqa: F401 - fixtures
    engine,
    new_session,
    paired,
    post,
)
from webhooks.models import Event

pytestmark = pytest.mark.django_db(transaction=True)

IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 2


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


def test_statuses_are_posted_listed_deleted_and_seen_on_every_engine(paired, admin_client):
    text = post(admin_client, "status/text", paired, text="Oi", backgroundColor="#000000", font=1)
    assert text.status_code == 200, text.json()
    media = post(admin_client, "status/media", paired, type="image", base64=base64.b64encode(IMAGE).decode())
    assert media.status_code == 200 and media.json()["mediaUrl"]
    own = admin_client.get("/api/status", {"sessionId": str(paired.pk)}).json()["data"]
    assert [s["id"] for s in own] == [media.json()["id"], text.json()["id"]]
    assert post(admin_client, "status/delete", paired, id=text.json()["id"]).status_code == 200
    seen = admin_client.post(
        f"/api/sandbox/sessions/{paired.pk}/inbound",
        {"event": "status", "from": CUSTOMER, "text": "Bom dia", "backgroundColor": "#112233", "font": 5},
        format="json",
    )
    assert seen.status_code == 201, seen.json()
    contacts = admin_client.get("/api/status/contacts", {"sessionId": str(paired.pk)}).json()["data"]
    assert [(s["sender"], s["text"], s["font"]) for s in contacts] == [(CUSTOMER_JID, "Bom dia", 5)]
    assert Event.objects.filter(session_id=paired.pk, name="status").count() == 1


def test_channels_are_created_followed_and_posted_to_on_every_engine(paired, admin_client):
    created = admin_client.post(
        "/api/channels", {"sessionId": str(paired.pk), "name": "Ofertas"}, format="json"
    )
    assert created.status_code == 201, created.json()
    jid = created.json()["jid"]
    listed = admin_client.get("/api/channels", {"sessionId": str(paired.pk)}).json()["data"]
    assert [(c["jid"], c["role"]) for c in listed] == [(jid, "owner")]
    sent = post(admin_client, "messages/send", paired, to=jid, text="Abrimos às 9h")
    assert sent.status_code == 200, sent.json()
    posts = admin_client.get("/api/channels/messages", {"sessionId": str(paired.pk), "jid": jid}).json()
    assert [m["messageId"] for m in posts["data"]] == [sent.json()["messageId"]]
