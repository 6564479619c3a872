"""The `status` event in the instance interface (Ponte's extension, field `status`): text, media and
revoked statuses render as `status_posts[]` entries and pass the envelope's schema, and go to
`webhookMessage`."""

from __future__ import annotations

import pytest

from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import body_of, configure, instance_session

pytestmark = pytest.mark.django_db

CONTACT = "5511988887777@s.whatsapp.net"


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def _change(body: dict) -> dict:
    (change,) = body["entry"][0]["changes"]
    return change


def test_a_text_status_renders_with_its_colour_and_font(session):
    data = {"id": "ST1", "sender": CONTACT, "pushName": "Maria", "type": "text", "text": "Bom dia"}
    body = body_of(
        session, "status", {**data, "timestamp": 1763800400, "backgroundColor": "#112233", "font": 4}
    )
    validate_envelope(body)
    change = _change(body)
    assert change["field"] == "status"
    assert change["value"]["contacts"] == [{"profile": {"name": "Maria"}, "wa_id": "5511988887777"}]
    assert change["value"]["status_posts"] == [
        {
            "from": "5511988887777",
            "id": "ST1",
            "timestamp": "1763800400",
            "type": "text",
            "text": {"body": "Bom dia", "background_color": "#112233", "font": 4},
        }
    ]


def test_media_and_revoked_statuses_render_and_pass_the_schema(session):
    media = {"mediaUrl": "https://ponte.example/api/media/t", "mimeType": "image/jpeg", "sha256": "ab"}
    image = body_of(
        session, "status", {"id": "ST2", "sender": CONTACT, "type": "image", "caption": "c", **media}
    )
    validate_envelope(image)
    (entry,) = _change(image)["value"]["status_posts"]
    assert entry["image"] == {
        "url": media["mediaUrl"],
        "mime_type": "image/jpeg",
        "sha256": "ab",
        "caption": "c",
    }
    revoked = body_of(session, "status", {"id": "ST2", "sender": CONTACT, "type": "revoked"})
    validate_envelope(revoked)
    assert set(_change(revoked)["value"]["status_posts"][0]) == {"from", "id", "timestamp", "type"}
