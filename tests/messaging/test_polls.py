"""Polls through the public API on the sandbox: send, votes (sandbox inbound), results, events."""

from __future__ import annotations

import pytest

from messaging.models import Poll
from webhooks.models import Event

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"
OTHER = "5511988880003@s.whatsapp.net"


@pytest.fixture
def session(connected_session):
    return connected_session()


@pytest.fixture
def poll(admin_client, session):
    def send(**body):
        payload = {"sessionId": str(session.pk), "to": CUSTOMER, "name": "Lunch?", "options": ["Yes", "No"]}
        return admin_client.post("/api/messages/poll", {**payload, **body}, format="json")

    return send


def vote(admin_client, session, poll_id: str, voter: str, options: list[str]):
    body = {"event": "poll_vote", "from": voter, "pollMessageId": poll_id, "options": options}
    return admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")


def results(admin_client, session, poll_id: str):
    return admin_client.get(
        "/api/messages/poll-results", {"sessionId": str(session.pk), "messageId": poll_id}
    )


def test_a_poll_is_sent_with_the_send_reply_and_kept_in_the_history(admin_client, session, poll):
    response = poll(options=["Pizza", "Sushi", "Salad"], selectableCount=2)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"messageId", "status", "to", "timestamp"}
    assert body["to"] == CUSTOMER and body["status"] == "sent"
    stored = Poll.objects.get(message_id=body["messageId"])
    assert (stored.name, stored.options, stored.selectable_count) == (
        "Lunch?",
        ["Pizza", "Sushi", "Salad"],
        2,
    )
    history = admin_client.get("/api/messages", {"sessionId": str(session.pk)}).json()["data"]
    assert history[0]["type"] == "poll"
    assert history[0]["content"]["poll"] == {
        "name": "Lunch?",
        "options": ["Pizza", "Sushi", "Salad"],
        "selectableCount": 2,
    }


@pytest.mark.parametrize(
    "body, problem",
    [
        ({"options": ["Only one"]}, "options"),
        ({"options": [str(i) for i in range(13)]}, "options"),
        ({"options": ["Same", "Same"]}, "unique"),
        ({"options": ["Yes", "x" * 101]}, "options"),
        ({"options": ["Yes", ""]}, "options"),
        ({"name": ""}, "name"),
        ({"name": "q" * 256}, "name"),
        ({"selectableCount": 3}, "selectableCount"),
        ({"selectableCount": 0}, "selectableCount"),
    ],
)
def test_a_poll_with_invalid_fields_answers_400(poll, body, problem):
    response = poll(**body)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert problem in response.json()["message"]


def test_votes_are_counted_per_voter_and_the_last_vote_counts(admin_client, session, poll):
    poll_id = poll(options=["Pizza", "Sushi", "Salad"], selectableCount=2).json()["messageId"]
    assert vote(admin_client, session, poll_id, CUSTOMER, ["Pizza"]).status_code == 201
    assert vote(admin_client, session, poll_id, OTHER, ["Pizza", "Salad"]).status_code == 201
    assert vote(admin_client, session, poll_id, CUSTOMER, ["Sushi"]).status_code == 201
    response = results(admin_client, session, poll_id)
    assert response.status_code == 200
    assert response.json() == {
        "messageId": poll_id,
        "name": "Lunch?",
        "options": [
            {"name": "Pizza", "count": 1, "voters": [OTHER]},
            {"name": "Sushi", "count": 1, "voters": [CUSTOMER]},
            {"name": "Salad", "count": 1, "voters": [OTHER]},
        ],
    }


def test_an_empty_vote_clears_the_voters_choice(admin_client, session, poll):
    poll_id = poll().json()["messageId"]
    vote(admin_client, session, poll_id, CUSTOMER, ["Yes"])
    assert vote(admin_client, session, poll_id, CUSTOMER, []).status_code == 201
    options = results(admin_client, session, poll_id).json()["options"]
    assert [o["count"] for o in options] == [0, 0]


def test_a_vote_is_emitted_as_poll_vote_with_the_contract_fields(admin_client, session, poll):
    poll_id = poll().json()["messageId"]
    response = vote(admin_client, session, poll_id, "5511988880002", ["No"])
    assert response.status_code == 201, response.json()
    event = Event.objects.get(name="poll_vote")
    assert event.data["pollMessageId"] == poll_id
    assert event.data["voter"] == CUSTOMER
    assert event.data["selectedOptions"] == ["No"]
    assert event.data["chat"] == CUSTOMER
    assert isinstance(event.data["timestamp"], int)


def test_a_vote_naming_an_option_the_poll_lacks_or_too_many_answers_400(admin_client, session, poll):
    poll_id = poll().json()["messageId"]
    assert vote(admin_client, session, poll_id, CUSTOMER, ["Maybe"]).status_code == 400
    assert vote(admin_client, session, poll_id, CUSTOMER, ["Yes", "No"]).status_code == 400
    assert not Event.objects.filter(name="poll_vote").exists()


def test_results_of_an_unknown_poll_answer_404(admin_client, session):
    response = results(admin_client, session, "3EB0NOPE")
    assert response.status_code == 404
    assert response.json()["error"] == "MESSAGE_NOT_FOUND"
    assert vote(admin_client, session, "3EB0NOPE", CUSTOMER, ["Yes"]).status_code == 404


def test_a_viewer_reads_results_but_cannot_send_a_poll(make_key, session, poll, api_client):
    poll_id = poll().json()["messageId"]
    api_client.credentials(HTTP_X_API_KEY=make_key("viewer"))
    assert results(api_client, session, poll_id).status_code == 200
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "name": "Q", "options": ["a", "b"]}
    assert api_client.post("/api/messages/poll", body, format="json").status_code == 403


def test_a_poll_quoting_a_message_replies_to_it(admin_client, session, poll):
    first = poll().json()["messageId"]
    response = poll(quoted={"messageId": first})
    assert response.status_code == 200
    history = admin_client.get("/api/messages", {"sessionId": str(session.pk)}).json()["data"]
    assert history[0]["content"]["quoted"] == {"messageId": first}
