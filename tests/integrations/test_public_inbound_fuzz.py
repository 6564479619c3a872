"""Fuzzing every public inbound path with bodies an outside party signed: NUL bytes, lone surrogates and
odd unicode, numbers past any column, non-finite numbers, deep nesting, wrong types. Never a 5xx, and a
valid event in the same batch is still stored. Run it on PostgreSQL too: that is where NUL fails.

Bounded: a fixed number of examples per path, derandomized (the same bodies on every run), no deadline.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrations.chatwoot.models import MirrorJob
from messaging.models import Message
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
