"""A refused sandbox inbound body answers 400 VALIDATION_ERROR naming the field at fault, and an
accepted one keeps its strings exactly as given."""

from __future__ import annotations

import pytest

from messaging.models import Message
from tests.messaging.contract import CUSTOMER
from webhooks.models import Event

pytestmark = pytest.mark.django_db

GROUP = "120363000000000123@g.us"


@pytest.fixture
def inject(admin_client, session):
    def post(**body):
        return admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")

    return post


def refusal(response) -> str:
    assert response.status_code == 400
    body = response.json()
    assert body["statusCode"] == 400 and body["error"] == "VALIDATION_ERROR"
    return body["message"]


def test_inbound_poll_vote_without_poll_message_id_names_the_field(inject):
    message = refusal(inject(event="poll_vote", options=["Yes"], **{"from": CUSTOMER}))
    assert message == "pollMessageId: This field is required."


def test_inbound_poll_vote_with_a_blank_option_names_the_option(inject):
    message = refusal(
        inject(event="poll_vote", pollMessageId="p1", options=["Yes", ""], **{"from": CUSTOMER})
    )
    assert message == "options.1: This field may not be blank."


def test_inbound_message_edit_without_text_names_the_field(inject):
    assert (
        refusal(inject(event="message_edited", messageId="m1", **{"from": CUSTOMER}))
        == "text: This field is required."
    )


def test_inbound_ack_with_an_unknown_status_names_the_field(inject):
    message = refusal(inject(event="message_ack", messageId="m1", status="seen"))
    assert message == 'status: "seen" is not a valid choice.'


def test_inbound_call_with_a_non_boolean_video_names_the_field(inject):
    assert (
        refusal(inject(event="call", video="yes", **{"from": CUSTOMER})) == "video: Must be a valid boolean."
    )


def test_inbound_group_leave_with_no_participants_names_the_field(inject):
    message = refusal(inject(event="group_leave", group=GROUP, participants=[]))
    assert message == "participants: This list may not be empty."


def test_inbound_event_without_a_sender_names_the_field(inject):
    message = refusal(inject(event="presence", presence="composing"))
    assert message == "from: required (a number with country code or a JID)."


def test_inbound_unknown_event_and_message_type_name_their_field(inject):
    assert refusal(inject(event="typing")).startswith("event: one of message, message_ack,")
    message = refusal(inject(event="message", type="gif", **{"from": CUSTOMER}))
    assert message.startswith("type: one of text, image,")


def test_inbound_contact_card_without_a_name_names_the_card(inject):
    contacts = [{"displayName": "Ana", "phoneNumber": "5511988887777"}, {"phoneNumber": "5511988887776"}]
    message = refusal(inject(event="message", type="contacts", contacts=contacts, **{"from": CUSTOMER}))
    assert message == "contacts.1.displayName: This field is required."


def test_inbound_media_with_bad_base64_names_the_nested_field(inject):
    media = {"base64": "not base64!", "mimeType": "image/png"}
    message = refusal(inject(event="message", type="image", media=media, **{"from": CUSTOMER}))
    assert message == "media.base64: not valid base64."


def test_inbound_location_as_strings_is_refused_naming_the_field(inject):
    body = {"type": "location", "latitude": "1.5", "longitude": 2, "from": CUSTOMER}
    assert refusal(inject(event="message", **body)) == "latitude: A valid number is required."
    assert not Event.objects.filter(name="message").exists()


def test_inbound_text_is_kept_as_given_and_a_number_is_not_taken_for_text(inject, session):
    assert refusal(inject(event="message", text=42, **{"from": CUSTOMER})) == "text: Not a valid string."
    response = inject(event="message", text="  spaced  ", **{"from": CUSTOMER})
    assert response.status_code == 201
    assert Message.objects.get(session=session, message_id=response.json()["data"]["id"]).content["text"] == (
        "  spaced  "
    )


def test_inbound_call_keeps_its_defaults(inject):
    response = inject(event="call", **{"from": CUSTOMER})
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["status"] == "offer" and data["video"] is False
