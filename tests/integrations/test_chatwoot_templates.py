"""Template sync: the session's approved templates published as Chatwoot canned responses `tpl_<name>`,
idempotently (updated, never duplicated), through the instance interface and the REST API."""

from __future__ import annotations

import pytest

from integrations.chatwoot.models import ChatwootIntegration
from tests.integrations.conftest import chatwoot_body
from tests.messaging.test_channel_window import ORDER_BODY, _template

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud(admin_client, official_session, graph, chatwoot):
    session = official_session("whatsapp_cloud")
    graph.templates = [
        _template("order_shipped", ORDER_BODY),
        _template("welcome", "Bem-vindo à Acme!"),
        _template("pending_one", "Seu código é {{1}}.", status="PENDING"),
    ]
    assert admin_client.post(f"/api/sessions/{session.pk}/templates/sync").status_code == 200
    key = session.instance_key_issue()
    session.save()
    url = f"/instances/{key}/chatwoot"
    assert admin_client.put(url, chatwoot_body(chatwoot), format="json").status_code == 200
    assert ChatwootIntegration.objects.filter(session=session).exists()
    return session, key


def test_approved_templates_become_canned_responses_once(api_client, admin_client, cloud, graph, chatwoot):
    session, key = cloud
    url = f"/instances/{key}/chatwoot/templates/sync"
    first = api_client.post(url)
    assert first.status_code == 200, first.json()
    assert first.json() == {
        "status": 200,
        "data": {"created": ["tpl_order_shipped", "tpl_welcome"], "updated": [], "unchanged": []},
    }
    by_code = {c["short_code"]: c for c in chatwoot.canned.values()}
    assert by_code["tpl_order_shipped"]["content"] == ORDER_BODY
    assert "tpl_pending_one" not in by_code  # only approved templates
    again = api_client.post(url).json()["data"]
    assert again == {"created": [], "updated": [], "unchanged": ["tpl_order_shipped", "tpl_welcome"]}
    graph.templates = [_template("order_shipped", ORDER_BODY), _template("welcome", "Bem-vinda à Acme!")]
    assert admin_client.post(f"/api/sessions/{session.pk}/templates/sync").status_code == 200
    changed = api_client.post(url).json()["data"]
    assert changed == {"created": [], "updated": ["tpl_welcome"], "unchanged": ["tpl_order_shipped"]}
    assert len(chatwoot.canned) == 2


def test_template_sync_without_an_integration_says_so(api_client, paired_session):
    response = api_client.post(f"/instances/{paired_session.instance_key}/chatwoot/templates/sync")
    assert response.status_code == 404
    assert response.json()["error"] == "CHATWOOT_NOT_CONFIGURED"


def test_the_rest_api_syncs_through_the_same_service(keyed_client, operator_key, viewer_key, cloud, chatwoot):
    session, _ = cloud
    url = f"/api/sessions/{session.pk}/integrations/chatwoot/templates/sync"
    assert keyed_client(viewer_key).post(url).status_code == 403  # viewers only read
    first = keyed_client(operator_key).post(url)
    assert first.status_code == 200, first.json()
    assert first.json() == {"created": ["tpl_order_shipped", "tpl_welcome"], "updated": [], "unchanged": []}
    again = keyed_client(operator_key).post(url).json()
    assert again == {"created": [], "updated": [], "unchanged": ["tpl_order_shipped", "tpl_welcome"]}
    assert len(chatwoot.canned) == 2


def test_rest_template_sync_without_an_integration_says_so(admin_client, paired_session):
    response = admin_client.post(f"/api/sessions/{paired_session.pk}/integrations/chatwoot/templates/sync")
    assert response.status_code == 404
    assert response.json()["error"] == "CHATWOOT_NOT_CONFIGURED"


def test_the_rest_template_sync_is_declared_in_openapi():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/sessions/{session_id}/integrations/chatwoot/templates/sync"]["post"]
    assert operation["operationId"] == "chatwoot_templates_sync"
