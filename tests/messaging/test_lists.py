"""List messages on the sandbox: the send, its checks, the customer's choice (`list_response`)."""

from __future__ import annotations

import pytest

from messaging.models import Message
from messaging.services.lists import message_send_list
from messaging.values import ListMessage, ListRow, ListSection
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

SECTIONS = [
    {"title": "Pizzas", "rows": [{"rowId": "p1", "title": "Margherita", "description": "Tomate"}]},
    {"title": "Bebidas", "rows": [{"rowId": "b1", "title": "Suco"}, {"rowId": "b2", "title": "Água"}]},
]


@pytest.fixture
def send_list(admin_client, session):
    def post(**body):
        base = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "Escolha", "buttonText": "Ver menu"}
        return admin_client.post("/api/messages/list", {**base, **body}, format="json")

    return post


def test_a_list_is_sent_with_the_send_reply_kept_in_the_history_and_echoed(send_list):
    response = send_list(sections=SECTIONS, title="Menu", footer="Loja")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["to"] == CUSTOMER_JID and body["status"] == "sent"
    message = Message.objects.get(message_id=body["messageId"])
    assert message.type == "list" and message.content["text"] == "Escolha"
    listed = message.content["list"]
    assert (listed["buttonText"], listed["title"], listed["footer"]) == ("Ver menu", "Menu", "Loja")
    assert listed["sections"][1]["rows"][1] == {"rowId": "b2", "title": "Água", "description": ""}
    (event,) = Event.objects.filter(name="message")
    assert event.data["type"] == "list" and event.data["fromMe"] is True
    assert event.data["list"]["sections"][0]["rows"][0]["rowId"] == "p1"


@pytest.mark.parametrize(
    ("sections", "named"),
    [
        ([], "sections"),
        ([{"title": "A", "rows": []}], "rows"),
        ([{"title": f"S{i}", "rows": [{"rowId": f"r{i}", "title": "x"}]} for i in range(11)], "sections"),
        ([{"title": "A", "rows": [{"rowId": f"r{i}", "title": "x"} for i in range(11)]}], "rows"),
        (
            [
                {"title": "A", "rows": [{"rowId": f"a{i}", "title": "x"} for i in range(6)]},
                {"title": "B", "rows": [{"rowId": f"b{i}", "title": "x"} for i in range(5)]},
            ],
            "at most 10 rows",
        ),
        (
            [{"title": "A", "rows": [{"rowId": "same", "title": "x"}, {"rowId": "same", "title": "y"}]}],
            "unique",
        ),
        ([{"title": "A", "rows": [{"title": "no id"}]}], "rowId"),
    ],
)
def test_a_list_of_the_wrong_shape_is_a_400_naming_the_problem(send_list, sections, named):
    response = send_list(sections=sections)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "VALIDATION_ERROR" and named in body["message"]
    assert not Message.objects.exists()


def test_the_button_text_is_required_and_short(send_list):
    assert send_list(sections=SECTIONS, buttonText="").status_code == 400
    assert send_list(sections=SECTIONS, buttonText="x" * 21).status_code == 400


def test_the_service_refuses_duplicate_rows_for_every_caller(session):
    rows = (ListRow("a", "A"), ListRow("a", "B"))
    message = ListMessage(text="t", button_text="b", sections=(ListSection("S", rows),))
    with pytest.raises(Exception, match="unique"):
        message_send_list(session=session, to=CUSTOMER_JID, message=message)


def test_a_customers_choice_arrives_as_a_list_response_message(admin_client, session, send_list):
    sent = send_list(sections=SECTIONS).json()
    response = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound",
        {
            "event": "message",
            "type": "list_response",
            "from": CUSTOMER,
            "listResponse": {"rowId": "b1", "title": "Suco"},
            "listMessageId": sent["messageId"],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    event = Event.objects.filter(name="message").order_by("created_at").last()
    assert event.data["type"] == "list_response"
    assert event.data["listResponse"] == {"rowId": "b1", "title": "Suco", "description": ""}
    assert event.data["text"] == "Suco" and event.data["quoted"]["messageId"] == sent["messageId"]
    stored = Message.objects.get(message_id=event.data["id"])
    assert stored.type == "list_response" and stored.content["listResponse"]["rowId"] == "b1"


def test_a_list_response_without_its_row_is_a_400(admin_client, session):
    response = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound",
        {"event": "message", "type": "list_response", "from": CUSTOMER, "listResponse": {"title": "x"}},
        format="json",
    )
    assert response.status_code == 400 and "rowId" in response.json()["message"]
