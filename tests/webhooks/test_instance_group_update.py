"""`group_update` in the `meta` envelope: a subject change keeps the cloud API's `group_subject_update`;
what the cloud API's group webhooks have no equivalent for (description, settings, invite) renders as
Ponte's documented extension `group_settings_update` (docs/instance-webhooks.md)."""

from __future__ import annotations

import pytest

from tests.webhooks.instance_support import GROUP_JID, body_of, configure, instance_session

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def groups_entry(session, data: dict) -> dict:
    body = body_of(session, "group_update", data)
    (change,) = body["entry"][0]["changes"]
    assert change["field"] == "groups"
    (entry,) = change["value"]["groups"]
    return entry


def test_a_subject_change_is_a_group_subject_update(session):
    entry = groups_entry(
        session, {"group": GROUP_JID, "subject": "Vendas", "changed": ["subject"], "timestamp": 1763800700}
    )
    assert entry == {
        "group_id": GROUP_JID,
        "type": "group_subject_update",
        "timestamp": "1763800700",
        "subject": "Vendas",
    }


def test_settings_and_description_are_ponte_s_group_settings_update(session):
    data = {
        "group": GROUP_JID,
        "subject": "Vendas",
        "by": "5511900000001@s.whatsapp.net",
        "changed": ["description", "announce", "locked"],
        "description": "Só vendas",
        "announce": True,
        "locked": False,
        "timestamp": 1763800700,
    }
    entry = groups_entry(session, data)
    assert entry == {
        "group_id": GROUP_JID,
        "type": "group_settings_update",
        "timestamp": "1763800700",
        "subject": "Vendas",
        "initiated_by": "5511900000001",
        "changed": ["description", "announce", "locked"],
        "description": "Só vendas",
        "only_admins_can_send": True,
        "only_admins_can_edit_info": False,
    }


def test_a_revoked_invite_names_what_changed_without_the_code(session):
    entry = groups_entry(session, {"group": GROUP_JID, "subject": "Vendas", "changed": ["invite"]})
    assert (entry["type"], entry["changed"]) == ("group_settings_update", ["invite"])
    assert "code" not in str(entry)
