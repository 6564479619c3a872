"""Fuzzing every public inbound path with bodies an outside party signed: NUL bytes, lone surrogates and
odd unicode, numbers past any column, non-finite numbers, deep nesting, wrong types. Never a 5xx, and a
valid event in the same batch is still stored. Run it on PostgreSQL too: that is where NUL fails.
And the signature headers themselves: non-ASCII, empty, duplicated, overlong. Always 401, nothing kept.

Bounded: a fixed number of examples per path, derandomized (the same bodies on every run), no deadline.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrations.chatwoot.models import MirrorJob
from integrations.chatwoot.signature import signature_of
from messaging.models import Message
from tests.integrations.conftest import CHATWOOT_WEBHOOK_SECRET
from tests.integrations.support import inbound
from tests.messaging.channel_webhooks import cloud_body, cloud_message, inbound_drain, page_body, page_item
from tests.messaging.graph_standin import sign
from webhooks.demo import DEMO_SECRET
from webhooks.signing import hex_signature

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ODD_TEXT = st.text(
    alphabet=st.sampled_from(
        ["\x00", "\ud800", "\udfff", "\u202e", "\ufeff", "é", "💬", "\n", "a", "0", "%"]
    ),
    max_size=30,
) | st.sampled_from(["a\x00b", "\x00", "x" * 300, "9" * 120, "99999999999999999999", "-1", "NaN", ""])
ODD_NUMBER = (
    st.sampled_from(
        [10**20, -(10**20), 2**63, -(2**63) - 1, 10**400, 1e308, float("nan"), float("inf"), -0.0, 0, -1]
    )
    | st.integers()
)
SCALAR = st.none() | st.booleans() | ODD_NUMBER | ODD_TEXT
ODD_VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ODD_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = "deep\x00"
    for level in range(depth):
        value = [value] if level % 2 else {"n": value}
    return value


DEEP = st.integers(min_value=20, max_value=400).map(_nested)
ANY_VALUE = ODD_VALUE | DEEP


def _odd(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`base` with some fields replaced (or added) by odd values, the rest kept."""
    return {**base, **changes}


def _raw(body: Any) -> bytes:
    # allow_nan: NaN and Infinity as Python's encoder writes them; ensure_ascii: lone surrogates as \\udXXX.
    return json.dumps(body, allow_nan=True).encode()


def _changes(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys) | ODD_TEXT, ANY_VALUE, min_size=1, max_size=4)


def _post_signed(client, session, raw: bytes):
    """POST, then record what the body stored as the worker would (odd items must not fail it either)."""
    response = client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )
    inbound_drain(session)
    return response


CLOUD_KEYS = [
    "from",
    "id",
    "timestamp",
    "type",
    "text",
    "context",
    "image",
    "location",
    "contacts",
    "reaction",
]
STATUS_KEYS = ["id", "status", "timestamp", "recipient_id", "errors"]


@given(message=_changes(CLOUD_KEYS), status=_changes(STATUS_KEYS), extra=_changes(["metadata", "contacts"]))
@FUZZ
def test_whatsapp_cloud_webhooks_never_5xx_and_keep_the_good_event(
    meta_client, cloud_session, message, status, extra
):
    good = cloud_message("text", {"body": "Bom dia"}, mid=f"wamid.GOOD{uuid.uuid4().hex}")
    odd = _odd(cloud_message("text", {"body": "odd"}, mid=f"wamid.ODD{uuid.uuid4().hex}"), message)
    statuses = [_odd({"id": "wamid.OUT", "status": "delivered", "timestamp": "1763800000"}, status)]
    body = cloud_body(messages=[odd, good], statuses=statuses)
    body["entry"][0]["changes"][0]["value"].update(extra)
    body["entry"][0]["changes"][0]["value"]["messages"] = [odd, good]
    response = _post_signed(meta_client, cloud_session, _raw(body))
    assert response.status_code == 200, response.content
    assert Message.objects.filter(session=cloud_session, message_id=good["id"]).exists()


PAGE_KEYS = ["sender", "recipient", "timestamp", "message", "reaction", "postback", "delivery", "read"]
PAGE_MESSAGE_KEYS = ["mid", "text", "is_echo", "reply_to", "quick_reply", "attachments", "sticker_id"]


@given(
    item=_changes(PAGE_KEYS),
    message=_changes(PAGE_MESSAGE_KEYS),
    provider=st.sampled_from(["messenger", "instagram"]),
)
@FUZZ
def test_messenger_and_instagram_webhooks_never_5xx_and_keep_the_good_event(
    meta_client, page_sessions, item, message, provider
):
    session = page_sessions[provider]
    good = page_item(message={"mid": f"m_GOOD{uuid.uuid4().hex}", "text": "Olá"})
    odd = _odd(page_item(message=_odd({"mid": f"m_ODD{uuid.uuid4().hex}", "text": "x"}, message)), item)
    response = _post_signed(meta_client, session, _raw(page_body(odd, good, provider=provider)))
    assert response.status_code == 200, response.content
    assert Message.objects.filter(session=session, message_id=good["message"]["mid"]).exists()


CHATWOOT_KEYS = ["event", "id", "content", "message_type", "private", "source_id", "content_attributes",
                 "sender", "conversation", "attachments", "user", "is_private"]  # fmt: skip


@given(changes=_changes(CHATWOOT_KEYS))
@FUZZ
def test_chatwoot_webhooks_never_5xx(api_client, integration, chatwoot_conversation, changes):
    base = {"event": "message_created", "id": 1, "message_type": "outgoing", "content": "odd",
            "conversation": {"id": chatwoot_conversation}}  # fmt: skip
    raw = _raw(_odd(base, changes))
    response = api_client.generic(
        "POST", f"/integrations/chatwoot/{integration.webhook_token}", raw, content_type="application/json"
    )
    assert response.status_code < 500, response.content


def test_after_the_chatwoot_fuzz_a_good_agent_message_is_still_queued(
    api_client, integration, chatwoot_conversation
):
    test_chatwoot_webhooks_never_5xx.hypothesis.inner_test(
        api_client, integration, chatwoot_conversation, {"content": "a\x00b", "id": 10**30}
    )
    good = {"event": "message_created", "id": 424242, "message_type": "outgoing", "content": "Bom dia",
            "conversation": {"id": chatwoot_conversation}}  # fmt: skip
    response = api_client.post(f"/integrations/chatwoot/{integration.webhook_token}", good, format="json")
    assert response.json()["result"] == "queued"
    assert MirrorJob.objects.filter(dedupe_key="cw-message:424242").exists()


PATH_KEYS = (
    st.lists(
        st.sampled_from(["%00", "%ED%A0%80", "%FF", "é", "💬", "a", "Z", "-", "_", ".", "%2F", "~"]),
        min_size=1,
        max_size=40,
    )
    .map("".join)
    .map(lambda key: key if key.strip(".") else f"k{key}")
)


@given(key=PATH_KEYS, token=PATH_KEYS)
@FUZZ
def test_odd_keys_in_the_instance_and_receiving_paths_never_5xx(api_client, integration, key, token):
    for path in (
        f"/instances/{key}/instance",
        f"/instances/{key}/chatwoot",
        f"/instances/{key}/instance/webhook/statistics",
    ):
        assert api_client.get(path).status_code < 500, path
    assert (
        api_client.post(f"/integrations/chatwoot/{token}", {"event": "x"}, format="json").status_code == 404
    )


INSTANCE_KEYS = [
    "allowWebhook",
    "allowNumber",
    "webhookFormat",
    "webhookMessage",
    "webhookGroup",
    "webhookHistory",
]
CHATWOOT_CONFIG_KEYS = ["baseUrl", "accessToken", "inboxIdentifier", "signMessages", "enabled"]


@given(config=_changes(INSTANCE_KEYS), chatwoot_config=_changes(CHATWOOT_CONFIG_KEYS))
@FUZZ
def test_odd_bodies_on_the_instance_routes_never_5xx(
    api_client, paired_session, integration, config, chatwoot_config
):
    key = paired_session.instance_key
    assert (
        api_client.put(
            f"/instances/{key}/instance", _raw(config), content_type="application/json"
        ).status_code
        < 500
    )
    response = api_client.put(
        f"/instances/{key}/chatwoot", _raw(chatwoot_config), content_type="application/json"
    )
    assert response.status_code < 500, response.content
    assert api_client.get(f"/instances/{key}/instance").status_code == 200


@given(body=ANY_VALUE, noise=st.binary(max_size=40))
@FUZZ
def test_the_demo_receiver_never_5xx(client, demo_receiver, body, noise):
    raw = _raw(body)
    for sent in (raw, noise, raw[: len(raw) // 2]):
        signature = hex_signature(secret=DEMO_SECRET, body=sent)
        response = client.post(
            "/demo/webhook", sent, content_type="application/json", HTTP_X_WEBHOOK_SIGNATURE=signature
        )
        assert response.status_code == 200, response.content
    assert client.get("/demo/").status_code == 200


# --- Signature headers ------------------------------------------------------------------------------


def _odd_signatures(good: str) -> st.SearchStrategy[str]:
    """Malformed variants of the signature header `good` ("sha256=<hex>"). A header sent twice reaches
    Django as both values joined by a comma (core/wsgi_bridge.py, as PEP 3333 servers do)."""
    digest = good.removeprefix("sha256=")
    return st.sampled_from(
        [
            "sha256=éé",
            "sha256=" + "é" * len(digest),
            good[:-2] + "é\u00ff",
            good[:-1] + "\ud800",
            "",
            " ",
            "sha256=",
            "sha256",
            "=" + digest,
            digest,
            f"{good},{good}",
            f"{good}, {good}",
            good + "\x00",
            good + "\t\x7f",
            "sha256=" + "a" * 8192,
            good + "0" * 4096,
            "sha1=" + digest[:40],
            "sha256=💬",
        ]
    ) | st.text(alphabet=st.sampled_from(["é", "\x00", "=", ",", " ", "a", "0", "💬", "\u202e"]), max_size=80)


@given(data=st.data())
@FUZZ
def test_malformed_hub_signatures_are_401_and_record_nothing(meta_client, cloud_session, data):
    raw = _raw(cloud_body(messages=[cloud_message("text", {"body": "odd"}, mid="wamid.SIGNED1")]))
    header = data.draw(_odd_signatures(sign(raw)))
    response = meta_client.post(
        f"/channels/{cloud_session.provider}/{cloud_session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=header,
    )
    assert response.status_code == 401, (header, response.content)
    assert not Message.objects.filter(session=cloud_session).exists()


@given(data=st.data())
@FUZZ
def test_malformed_chatwoot_signatures_are_401_and_queue_nothing(api_client, signed_integration, data):
    raw = _raw({"event": "message_created", "id": 7, "message_type": "outgoing", "content": "odd"})
    timestamp = data.draw(st.sampled_from([str(int(time.time())), "", "é", "1" * 400]))
    header = data.draw(_odd_signatures(signature_of(CHATWOOT_WEBHOOK_SECRET, timestamp, raw)))
    response = api_client.generic(
        "POST",
        f"/integrations/chatwoot/{signed_integration.webhook_token}",
        raw,
        content_type="application/json",
        headers={"X-Chatwoot-Signature": header, "X-Chatwoot-Timestamp": timestamp},
    )
    assert response.status_code == 401, (header, response.content)
    assert not MirrorJob.objects.exists()


def test_a_non_ascii_signature_on_the_demo_receiver_is_checked_not_a_500(client, demo_receiver):
    response = client.post(
        "/demo/webhook", b"{}", content_type="application/json", HTTP_X_WEBHOOK_SIGNATURE="éé"
    )
    assert response.status_code == 200, response.content


# --- fixtures --------------------------------------------------------------------------------------


@pytest.fixture
def cloud_session(official_session):
    return official_session("whatsapp_cloud")


@pytest.fixture
def page_sessions(official_session):
    return {provider: official_session(provider, name=provider) for provider in ("messenger", "instagram")}


@pytest.fixture
def chatwoot_conversation(admin_client, integration, chatwoot) -> int:
    from tests.integrations.support import drain_all

    inbound(admin_client, integration.session, text="Oi", messageId="3EB0CUSTOMERFUZZ1")
    drain_all(integration)
    (cid,) = chatwoot.conversations
    return cid


@pytest.fixture
def demo_receiver(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.PONTE_DEMO_RECEIVER = True


@pytest.fixture
def meta_client():
    from rest_framework.test import APIClient

    return APIClient()
