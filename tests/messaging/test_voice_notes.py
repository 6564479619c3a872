"""Voice notes that play as voice notes (issue 41, item 8): MP3, WAV, M4A/AAC and OGG/Vorbis converted to
OGG/Opus, mono, 48 kHz, with the length and a 64-value waveform, on the sandbox in process and hosted by
`run_engine` processes; undecodable or overlong audio is a 400 that names the problem. The input files
are built with PyAV itself (tests/messaging/audio_inputs.py)."""

from __future__ import annotations

import base64
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

import pytest
from django.db import transaction

from messaging.models import Message
from messaging.services.audio import VoiceNote, voice_note, waveform
from tests.localhttp import base_url, serving
from tests.messaging.audio_inputs import audio_facts, tone
from tests.messaging.contract import CUSTOMER
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


def send_voice(client, session, data: bytes, **extra):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "type": "voice", **extra}
    if "url" not in extra:
        body["base64"] = base64.b64encode(data).decode()
    return client.post("/api/messages/media", body, format="json")


def served(client, url: str) -> bytes:
    response = client.get(urlsplit(url).path)
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def echo(session) -> dict:
    return Event.objects.filter(session_id=session.pk, name="message").order_by("-sequence").first().data


@pytest.mark.parametrize("kind", ["mp3", "wav", "m4a", "aac", "ogg"])
def test_each_upload_format_is_sent_as_ogg_opus_mono_48khz_with_its_length_and_waveform(
    admin_client, client, session, kind
):
    response = send_voice(admin_client, session, tone(kind, seconds=2.0))
    assert response.status_code == 200, response.json()
    data = echo(session)
    assert (data["type"], data["voice"], data["mimeType"]) == ("audio", True, "audio/ogg; codecs=opus")
    facts = audio_facts(served(client, data["mediaUrl"]))
    assert (facts.container, facts.codec, facts.channels, facts.rate) == ("ogg", "opus", 1, 48_000)
    assert abs(facts.seconds - 2.0) < 0.1  # encoders pad a few milliseconds, never more
    assert data["seconds"] == 2
    bars = data["waveform"]
    assert len(bars) == 64 and all(0 <= bar <= 100 for bar in bars) and max(bars) == 100
    # The tone grows louder from silence: so does its waveform.
    assert bars[0] < 10 and sum(bars[:16]) < sum(bars[48:])
    stored = Message.objects.get(message_id=response.json()["messageId"])
    assert (stored.type, stored.content["seconds"], stored.content["waveform"]) == ("audio", 2, bars)


def test_a_voice_note_fetched_from_a_url_is_converted_too(admin_client, session, settings):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    mp3 = tone("mp3", seconds=3.0, rising=False)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("Content-Length", str(len(mp3)))
            self.end_headers()
            self.wfile.write(mp3)

        def log_message(self, *args):
            pass

    with serving(Handler) as server:
        response = send_voice(admin_client, session, b"", url=f"{base_url(server)}/note.mp3")
    assert response.status_code == 200, response.json()
    data = echo(session)
    assert data["seconds"] == 3 and data["mimeType"] == "audio/ogg; codecs=opus"
    assert min(data["waveform"]) >= 90  # a steady tone: every bar close to the loudest


@pytest.mark.parametrize(
    "data,problem",
    [
        (b"OggS" + b"\x00" * 50, "base64: not audio that can be decoded"),
        # FFmpeg reads a PNG header as a picture: a file, but with nothing to hear.
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "base64: the file holds no audio stream"),
        (b"just some text, not audio at all", "base64: not audio that can be decoded"),
    ],
)
def test_undecodable_audio_is_400_naming_the_problem_and_sends_nothing(admin_client, session, data, problem):
    response = send_voice(admin_client, session, data)
    assert response.status_code == 400, response.json()
    assert problem in response.json()["message"]
    assert not Message.objects.filter(session=session, from_me=True).exists()


def test_a_voice_note_counts_against_the_daily_quota_and_a_refused_one_does_not(admin_client, session):
    plan = session.account.plan
    plan.messages_per_day = 1
    plan.save()
    assert send_voice(admin_client, session, b"not audio").status_code == 400
    assert send_voice(admin_client, session, tone("wav", seconds=0.5)).status_code == 200
    assert send_voice(admin_client, session, tone("wav", seconds=0.5)).status_code == 429


def test_audio_longer_than_the_limit_is_refused_before_it_is_all_decoded(admin_client, session, settings):
    settings.MESSAGING_VOICE_MAX_SECONDS = 1
    response = send_voice(admin_client, session, tone("wav", seconds=3.0))
    assert response.status_code == 400
    assert "longer than 1 seconds" in response.json()["message"]


def test_conversion_refuses_to_run_inside_a_transaction():
    with transaction.atomic(), pytest.raises(RuntimeError, match="before opening a transaction"):
        voice_note(tone("wav", seconds=0.5))


def test_the_waveform_is_64_bars_scaled_to_the_loudest_and_silence_is_flat():
    import array

    assert waveform(array.array("h")) == (0,) * 64
    assert waveform(array.array("h", [0] * 1000)) == (0,) * 64
    ramp = waveform(array.array("h", range(0, 6400)))
    assert len(ramp) == 64 and ramp[-1] == 100 and list(ramp) == sorted(ramp)
    note = voice_note(tone("ogg", seconds=1.0))
    assert isinstance(note, VoiceNote) and note.seconds == 1 and len(note.waveform) == 64
