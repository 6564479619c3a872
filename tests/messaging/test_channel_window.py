"""The 24-hour customer service window and message templates on official channels."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.channels.models import ChannelConversation, ChannelTemplate
from messaging.models import Message
from tests.messaging.channel_webhooks import PSID, cloud_body, cloud_message, post_signed
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.graph_standin import VERSION, WABA_ID

pytestmark = pytest.mark.django_db

ORDER_BODY = "Olá {{1}}, seu pedido {{2}} foi enviado."


def _template(name: str, body: str, *, status: str = "APPROVED", language: str = "pt_BR") -> dict:
    return {
        "name": name,
        "status": status,
        "language": language,
        "category": "UTILITY",
        "components": [{"type": "HEADER", "format": "TEXT", "text": "Acme"}, {"type": "BODY", "text": body}],
    }


@pytest.fixture
def cloud(official_session, graph, admin_client):
    session = official_session("whatsapp_cloud")
    graph.templates = [
        _template("order_shipped", ORDER_BODY),
        _template("welcome", "Bem-vindo à Acme!"),
        _template("pending_one", "Seu código é {{1}}.", status="PENDING"),
    ]
    response = admin_client.post(f"/api/sessions/{session.pk}/templates/sync")
    assert response.status_code == 200, response.json()
    return session


def _last_customer_message(session, ago: timedelta, chat: str = CUSTOMER_JID) -> None:
    ChannelConversation.objects.update_or_create(
        session=session, chat=chat, defaults={"last_customer_at": timezone.now() - ago}
    )


def _send(admin_client, session, text: str, to: str = CUSTOMER):
    return admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": to, "text": text}, format="json"
    )


def test_templates_are_synced_with_their_variables(admin_client, graph, cloud):
    call = next(c for c in graph.calls if "message_templates" in c.path)
    assert call.path == f"/{VERSION}/{WABA_ID}/message_templates"
    data = admin_client.get(f"/api/sessions/{cloud.pk}/templates").json()["data"]
    by_name = {t["name"]: t for t in data}
    assert by_name["order_shipped"]["body"] == ORDER_BODY and by_name["order_shipped"]["variables"] == 2
    assert by_name["pending_one"]["status"] == "PENDING"


def test_a_second_sync_drops_templates_meta_no_longer_lists(admin_client, graph, cloud):
    graph.templates = [_template("welcome", "Bem-vindo à Acme!")]
    assert admin_client.post(f"/api/sessions/{cloud.pk}/templates/sync").status_code == 200
    assert list(ChannelTemplate.objects.filter(session=cloud).values_list("name", flat=True)) == ["welcome"]


def test_messenger_has_no_templates_to_sync(admin_client, official_session):
    session = official_session("messenger")
    response = admin_client.post(f"/api/sessions/{session.pk}/templates/sync")
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"


def test_free_text_is_sent_23h59_after_the_customer_s_last_message(admin_client, graph, cloud):
    _last_customer_message(cloud, timedelta(hours=23, minutes=59))
    response = _send(admin_client, cloud, "Qualquer coisa")
    assert response.status_code == 200
    assert graph.sends()[0].body["type"] == "text"


def test_free_text_is_not_attempted_24h01_after_and_is_recorded_failed(admin_client, graph, cloud):
    _last_customer_message(cloud, timedelta(hours=24, minutes=1))
    response = _send(admin_client, cloud, "Qualquer coisa")
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "OUTSIDE_CUSTOMER_WINDOW" and body["lastCustomerMessageAt"]
    assert graph.sends() == []
    failed = Message.objects.get(message_id=body["messageId"])
    assert failed.status == "failed" and failed.content["text"] == "Qualquer coisa"


def test_outside_the_window_a_matching_text_is_sent_as_the_template_with_its_variables(
    admin_client, graph, cloud
):
    _last_customer_message(cloud, timedelta(hours=30))
    response = _send(admin_client, cloud, "Olá Maria, seu pedido #4521 foi enviado.")
    assert response.status_code == 200, response.json()
    (call,) = graph.sends()
    assert call.body["type"] == "template"
    assert call.body["template"] == {
        "name": "order_shipped",
        "language": {"code": "pt_BR"},
        "components": [
            {
                "type": "body",
                "parameters": [{"type": "text", "text": "Maria"}, {"type": "text", "text": "#4521"}],
            }
        ],
    }
    message = Message.objects.get(message_id=response.json()["messageId"])
    assert message.type == "template" and message.content["template"]["parameters"] == ["Maria", "#4521"]


def test_a_template_without_variables_matches_its_exact_text(admin_client, graph, cloud):
    _last_customer_message(cloud, timedelta(days=3))
    assert _send(admin_client, cloud, "Bem-vindo à Acme!").status_code == 200
    assert graph.sends()[0].body["template"] == {"name": "welcome", "language": {"code": "pt_BR"}}


def test_a_template_not_yet_approved_is_never_used(admin_client, graph, cloud):
    _last_customer_message(cloud, timedelta(days=2))
    response = _send(admin_client, cloud, "Seu código é 1234.")
    assert response.status_code == 409 and graph.sends() == []


def test_unknown_last_message_time_lets_the_send_proceed(admin_client, graph, cloud):
    assert _send(admin_client, cloud, "Primeiro contato").status_code == 200
    assert graph.sends()[0].body["type"] == "text"


def test_the_window_counts_from_the_channel_s_own_timestamp(admin_client, graph, cloud):
    sent_at = int((timezone.now() - timedelta(hours=25)).timestamp())
    body = cloud_body(messages=[cloud_message("text", {"body": "oi"}, ts=sent_at)])
    assert post_signed(admin_client, cloud, body).status_code == 200
    assert _send(admin_client, cloud, "resposta tardia").status_code == 409
    recent = cloud_body(
        messages=[cloud_message("text", {"body": "de novo"}, mid="wamid.IN2", ts=sent_at + 7200)]
    )
    assert post_signed(admin_client, cloud, recent).status_code == 200
    assert _send(admin_client, cloud, "agora vai").status_code == 200


def test_a_late_webhook_never_moves_the_window_back(admin_client, cloud):
    now = int(timezone.now().timestamp())
    post_signed(admin_client, cloud, cloud_body(messages=[cloud_message("text", {"body": "a"}, ts=now)]))
    old = cloud_body(messages=[cloud_message("text", {"body": "b"}, mid="wamid.OLD", ts=now - 90000)])
    post_signed(admin_client, cloud, old)
    window = ChannelConversation.objects.get(session=cloud, chat=CUSTOMER_JID)
    assert int(window.last_customer_at.timestamp()) == now


def test_the_messenger_window_refuses_free_text_too(admin_client, graph, official_session):
    session = official_session("messenger")
    _last_customer_message(session, timedelta(hours=24, minutes=1), chat=f"{PSID}@s.whatsapp.net")
    response = _send(admin_client, session, "late", to=PSID)
    assert response.status_code == 409 and graph.sends() == []
