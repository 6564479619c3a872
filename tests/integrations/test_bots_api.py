"""The bots' REST interface: create, read, change, delete; roles; secrets never returned; checks of
each kind's settings and of the rules; another account's bot is not found."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from integrations.bots.models import Bot
from tests.integrations.bots_support import HOOK_SECRET, bot_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]

# A closed local port: these tests never call the bot, and nothing may leave 127.0.0.1.
LOCAL = "http://127.0.0.1:9"

OPENAI = {"baseUrl": f"{LOCAL}/v1", "model": "gpt-4o-mini", "systemPrompt": "Seja breve."}


def test_an_admin_creates_an_openai_bot_and_its_api_key_is_never_returned(admin_client, paired_session):
    reply = bot_create(admin_client, paired_session, "openai", OPENAI, secret="sk-test-abcdef")
    assert reply["kind"] == "openai" and reply["enabled"] is True and reply["secretSet"] is True
    assert reply["settings"]["temperature"] == 0.7 and reply["settings"]["contextMessages"] == 10
    assert reply["rules"]["stopKeyword"] == "#sair" and reply["rules"]["ignoreGroups"] is True
    listed = admin_client.get(f"/api/bots?sessionId={paired_session.pk}")
    assert [bot["id"] for bot in listed.json()] == [reply["id"]]
    for body in (listed.content, admin_client.get(f"/api/bots/{reply['id']}").content):
        assert b"sk-test-abcdef" not in body
    assert Bot.objects.get().secret == "sk-test-abcdef"  # kept, encrypted at rest


def test_the_secret_is_stored_encrypted(admin_client, paired_session):
    from django.db import connection

    bot_create(admin_client, paired_session, "openai", OPENAI, secret="sk-test-abcdef")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT secret FROM {Bot._meta.db_table}")
        (stored,) = cursor.fetchone()
    assert stored and "sk-test-abcdef" not in stored


def test_a_viewer_reads_bots_but_cannot_create_or_change_them(admin_client, paired_session, viewer_key):
    created = bot_create(admin_client, paired_session, "openai", OPENAI)
    viewer = APIClient()
    viewer.credentials(HTTP_X_API_KEY=viewer_key)
    assert viewer.get(f"/api/bots/{created['id']}").status_code == 200
    body = {"sessionId": str(paired_session.pk), "name": "x", "kind": "openai", "settings": OPENAI}
    assert viewer.post("/api/bots", body, format="json").status_code == 403
    assert viewer.delete(f"/api/bots/{created['id']}").status_code == 403


def test_an_operator_changes_a_bot_and_keeps_its_secret_when_none_is_given(
    admin_client, paired_session, operator_key
):
    created = bot_create(admin_client, paired_session, "http", {"url": f"{LOCAL}/webhook/abc"})
    operator = APIClient()
    operator.credentials(HTTP_X_API_KEY=operator_key)
    body = {
        "sessionId": str(paired_session.pk),
        "name": "renamed",
        "kind": "http",
        "enabled": False,
        "settings": {"url": f"{LOCAL}/webhook/def"},
        "rules": {"trigger": "keyword", "operator": "equals", "value": "menu"},
    }
    reply = operator.put(f"/api/bots/{created['id']}", body, format="json")
    assert reply.status_code == 200, reply.json()
    assert reply.json()["name"] == "renamed" and reply.json()["enabled"] is False
    assert reply.json()["rules"]["trigger"] == "keyword" and reply.json()["rules"]["value"] == "menu"
    assert Bot.objects.get().secret == HOOK_SECRET
    assert operator.delete(f"/api/bots/{created['id']}").json()["success"] is True
    assert not Bot.objects.exists()


@pytest.mark.parametrize(
    ("kind", "kind_settings", "extra", "field"),
    [
        ("openai", {"baseUrl": f"{LOCAL}/v1"}, {}, "model"),
        ("openai", {**OPENAI, "temperature": 3}, {}, "temperature"),
        ("http", {"url": "http://10.0.0.5/hook"}, {"secret": HOOK_SECRET}, "url"),
        ("http", {"url": f"{LOCAL}/hook"}, {}, "secret"),
        ("http", {"url": f"{LOCAL}/hook"}, {"secret": "short"}, "secret"),
        ("typebot", {"baseUrl": LOCAL, "typebot": "bad id!"}, {}, "typebot"),
        (
            "openai",
            OPENAI,
            {"rules": {"trigger": "keyword", "operator": "regex", "value": "(unclosed"}},
            "value",
        ),
        ("openai", OPENAI, {"rules": {"trigger": "keyword"}}, "value"),
        ("openai", OPENAI, {"unexpected": 1}, "unexpected"),
    ],
)
def test_bad_settings_and_rules_are_400_naming_the_field(
    admin_client, paired_session, kind, kind_settings, extra, field
):
    body = {
        "sessionId": str(paired_session.pk),
        "name": "b",
        "kind": kind,
        "settings": kind_settings,
        **extra,
    }
    response = admin_client.post("/api/bots", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.content.decode()
    assert not Bot.objects.exists()


def test_another_accounts_bot_is_not_found(admin_client, paired_session, make_account, make_key):
    created = bot_create(admin_client, paired_session, "openai", OPENAI)
    stranger = APIClient()
    stranger.credentials(HTTP_X_API_KEY=make_key(for_account=make_account()))
    response = stranger.get(f"/api/bots/{created['id']}")
    assert response.status_code == 404 and response.json()["error"] == "BOT_NOT_FOUND"
    assert stranger.get("/api/bots").json() == []


def test_a_bot_stays_on_its_session(admin_client, paired_session):
    from tests.messaging.pairing import pair_sandbox_session

    created = bot_create(admin_client, paired_session, "openai", OPENAI)
    other = pair_sandbox_session(admin_client, name="sales", phone="5511999990002")
    body = {"sessionId": str(other.pk), "name": "b", "kind": "openai", "settings": OPENAI}
    response = admin_client.put(f"/api/bots/{created['id']}", body, format="json")
    assert response.status_code == 400 and "sessionId" in response.json()["message"]
