# ruff: noqa: F811 - the conformance fixtures are imported and used as arguments
"""Voice notes on every engine of the conformance suite (the in-process sandbox, and on PostgreSQL the
sandbox hosted by real `run_engine` processes): the converted note, its length and waveform cross the
bus and come back in the echo; official channels take voice notes by link (Meta fetches the file)."""

from __future__ import annotations

import base64
from urllib.parse import urlsplit

import pytest

from messaging.models import Message
from tests.messaging.audio_inputs import audio_facts, tone
from tests.messaging.channel_webhooks import PSID
from tests.messaging.contract import CUSTOMER
from tests.messaging.test_engine_conformance import (  # noqa: F401 - fixtures
    engine,
    new_session,
    paired,
    post,
)
from webhooks.models import Event

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def media_dir(settings, tmp_path):
    """Official channels only: engine processes store where their own settings say (the default)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


def test_a_voice_note_crosses_every_engine_converted_with_its_length_and_waveform(
    paired, admin_client, client
):
    sent = post(
        admin_client,
        "messages/media",
        paired,
        to=CUSTOMER,
        type="voice",
        base64=base64.b64encode(tone("m4a", seconds=1.5)).decode(),
    )
    assert sent.status_code == 200, sent.json()
    echo = Event.objects.get(session_id=paired.pk, name="message", data__id=sent.json()["messageId"]).data
    assert (echo["voice"], echo["seconds"], len(echo["waveform"])) == (True, 2, 64)
    response = client.get(urlsplit(echo["mediaUrl"]).path)
    facts = audio_facts(b"".join(response.streaming_content))
    assert (facts.codec, facts.channels, facts.rate) == ("opus", 1, 48_000)


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger"])
def test_official_channels_get_the_converted_note_as_a_ponte_link(
    admin_client, client, graph, official_session, provider, media_dir
):
    session = official_session(provider)
    to = CUSTOMER if provider == "whatsapp_cloud" else PSID
    body = {
        "sessionId": str(session.pk),
        "to": to,
        "type": "voice",
        "base64": base64.b64encode(tone("mp3")).decode(),
    }
    response = admin_client.post("/api/messages/media", body, format="json")
    assert response.status_code == 200, response.json()
    sent = graph.sends()[0].body
    if provider == "whatsapp_cloud":
        assert sent["type"] == "audio" and sent["audio"]["voice"] is True
        link = sent["audio"]["link"]
    else:
        assert sent["message"]["attachment"]["type"] == "audio"
        link = sent["message"]["attachment"]["payload"]["url"]
    response_file = client.get(urlsplit(link).path)  # what Meta fetches: the converted note
    facts = audio_facts(b"".join(response_file.streaming_content))
    assert (facts.codec, facts.channels, facts.rate) == ("opus", 1, 48_000)
    stored = Message.objects.get(message_id=response.json()["messageId"])
    assert (stored.type, stored.content["voice"], stored.content["seconds"]) == ("audio", True, 2)


def test_an_official_channel_refuses_undecodable_audio_before_calling_meta(
    admin_client, graph, official_session
):
    session = official_session("whatsapp_cloud")
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "type": "voice", "base64": "aGVsbG8="}
    response = admin_client.post("/api/messages/media", body, format="json")
    assert response.status_code == 400 and "not audio" in response.json()["message"]
    assert graph.sends() == []
