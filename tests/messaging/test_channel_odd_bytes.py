"""Signed channel webhooks holding what the database cannot store (NUL, numbers out of range, lone
surrogates, wrong types): the odd parts are cleaned or dropped, logged, and every other event of the
batch is stored; Meta gets 200, never a 5xx (it would retry the whole batch)."""

from __future__ import annotations

import json
import logging

import pytest

from core.signed_json import INT_MAX, INT_MIN, signed_json_load
from messaging.models import Message
from tests.messaging.channel_webhooks import (
    CUSTOMER,
    cloud_body,
    cloud_message,
    inbound_drain,
    page_body,
    page_item,
    post_signed,
)
from tests.messaging.graph_standin import sign

pytestmark = pytest.mark.django_db

GOOD = cloud_message("text", {"body": "Bom dia"}, mid="wamid.GOOD")


def _texts(session) -> dict[str, str]:
    return {m.message_id: m.content.get("text", "") for m in Message.objects.filter(session=session)}


def test_a_nul_in_a_text_is_removed_and_the_batch_is_stored(meta_client, official_session, caplog):
    session = official_session("whatsapp_cloud")
    odd = cloud_message("text", {"body": "a\u0000b"}, mid="wamid.NUL")
    with caplog.at_level(logging.WARNING):
        response = post_signed(meta_client, session, cloud_body(messages=[odd, GOOD]))
    assert response.status_code == 200, response.content
    assert _texts(session) == {"wamid.NUL": "ab", "wamid.GOOD": "Bom dia"}
    assert "NUL" in caplog.text


def test_a_timestamp_out_of_range_is_dropped_and_the_batch_is_stored(meta_client, official_session, caplog):
    session = official_session("whatsapp_cloud")
    odd = {**cloud_message("text", {"body": "Futuro"}, mid="wamid.HUGE"), "timestamp": "99999999999999999999"}
    numeric = {**cloud_message("text", {"body": "Número"}, mid="wamid.NUM"), "timestamp": 10**30}
    with caplog.at_level(logging.WARNING):
        response = post_signed(meta_client, session, cloud_body(messages=[odd, numeric, GOOD]))
    assert response.status_code == 200, response.content
    assert _texts(session) == {"wamid.HUGE": "Futuro", "wamid.NUM": "Número", "wamid.GOOD": "Bom dia"}
    assert "timestamp" in caplog.text


def test_a_status_with_a_huge_timestamp_is_recorded_without_it(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    statuses = [{"id": "wamid.OUT", "status": "delivered", "timestamp": "1" * 40, "recipient_id": CUSTOMER}]
    response = post_signed(meta_client, session, cloud_body(messages=[GOOD], statuses=statuses))
    assert response.status_code == 200, response.content
    assert set(_texts(session)) == {"wamid.GOOD"}


def test_wrong_types_and_unstorable_values_are_dropped_not_fatal(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    odd = [
        cloud_message("location", {"latitude": "north", "longitude": {"x": 1}}, mid="wamid.LOC"),
        cloud_message("contacts", {}, mid="wamid.CARDS", contacts=["not a card", {"name": "x"}]),
        cloud_message("image", {"id": 7, "caption": {"a": 1}, "filename": ["x"]}, mid="wamid.IMG"),
        cloud_message("text", {"body": "id longo"}, mid="wamid." + "X" * 300),
        {**cloud_message("text", {"body": "de quem?"}, mid="wamid.FROM"), "from": "9" * 300},
        cloud_message("text", {"body": "lone \ud800 surrogate"}, mid="wamid.SUR"),
    ]
    response = post_signed(meta_client, session, cloud_body(messages=[*odd, GOOD]))
    assert response.status_code == 200, response.content
    texts = _texts(session)
    assert texts["wamid.GOOD"] == "Bom dia"
    assert texts["wamid.SUR"] == "lone \ufffd surrogate"
    assert {"wamid.LOC", "wamid.CARDS", "wamid.IMG"} <= set(texts)


def test_a_page_webhook_with_a_nul_and_a_huge_timestamp_is_stored(meta_client, official_session):
    session = official_session("messenger")
    odd = page_item(ts_ms=10**25, message={"mid": "m_HUGE", "text": "x\u0000y"})
    good = page_item(message={"mid": "m_GOOD", "text": "Olá"})
    response = post_signed(meta_client, session, page_body(odd, good))
    assert response.status_code == 200, response.content
    assert _texts(session) == {"m_HUGE": "xy", "m_GOOD": "Olá"}


def test_json_nested_past_the_decoder_is_a_400_not_a_500(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    raw = b"[" * 200_000
    response = meta_client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )
    assert response.status_code == 400


def test_non_finite_numbers_are_dropped(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    body = json.dumps(cloud_body(messages=[GOOD])).replace('"type": "text"', '"type": "text", "n": NaN')
    raw = body.encode()
    response = meta_client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )
    assert response.status_code == 200
    inbound_drain(session)
    assert _texts(session) == {"wamid.GOOD": "Bom dia"}


def test_the_cleaning_rules_of_signed_json(settings, caplog):
    settings.PONTE_MAX_JSON_DEPTH = 4
    raw = (
        b'{"t\\u0000k": "a\\u0000b\\ud800", "big": 123456789012345678901234567890,'
        b' "neg": -99999999999999999999, "ok": 9223372036854775807, "long": 1'
        + b"0"
        * 5000
        + b', "nan": NaN, "inf": 1e400, "f": 1.5,'
        b' "deep": [[[[["gone"]]]], "kept"], "list": [NaN, 1]}'
    )
    with caplog.at_level(logging.WARNING, logger="core.signed_json"):
        cleaned = signed_json_load(raw, source="test body")
    assert cleaned == {
        "tk": "ab\ufffd",
        "big": INT_MAX,
        "neg": INT_MIN,
        "ok": INT_MAX,
        "long": INT_MAX,
        "f": 1.5,
        "deep": [[[]], "kept"],
        "list": [1],
    }
    assert caplog.text.count("test body: signed body cleaned") == 1


@pytest.mark.parametrize("raw", [b"[" * 100_000, b"\xff\xfe{", b"{", b""])
def test_a_body_the_decoder_cannot_read_is_a_value_error(raw):
    with pytest.raises(ValueError):
        signed_json_load(raw, source="test body")
