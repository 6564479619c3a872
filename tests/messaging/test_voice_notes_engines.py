# ruff: noqa: F811 - the conformance fixtures are imported and used as arguments
"""Voice notes on every engine of the conformance suite (the in-process sandbox, and on PostgreSQL the
sandbox hosted by real `run_engine` processes): the converted note, its length and waveform cross the
bus and come back in the echo; official channels take voice notes by link (Meta fetches the file)."""

from __future__ import annotations

import base64
from urllib.parse import urlsplit

import pytest

from tests.messaging.audio_inputs import audio_facts, tone
from tests.messaging.contract import CUSTOMER
from tests.messaging.test_engine_conformance import (  # noqa: F401 - fixtures
    engine,
    new_session,
    paired,
    post,
)
from webhooks.models import Event

pytestmark = pytest.mark.django_db(transaction=True)


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
