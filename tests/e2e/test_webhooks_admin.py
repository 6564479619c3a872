"""Staff resend dead letters from the admin in a real Chromium; a real Celery worker delivers them
to a real local receiver with the same x-webhook-id, and the attempt records who asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from messaging.models import Session
from tests.webhooks.support import LOOPBACK, Receiver, wait_for
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create
from webhooks.services import emit

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver(default=500).start()
    yield receiver
    receiver.stop()


def _dead_letter(session: Session, text: str) -> Delivery:
    event = emit(session_id=session.id, name="message", data={"id": text, "text": text})
    return wait_for(
        lambda: Delivery.objects.filter(event=event, status=Delivery.Status.DEAD).first(),
        what=f"dead letter {text}",
    )


def test_staff_resend_dead_letters_and_they_are_delivered_with_the_same_id(
    admin_login, live_server, make_account, worker, receiver, settings
):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    account = make_account(name="acme-resend")
    session = Session.objects.create(account=account, name="main")
    webhook_create(
        account=account,
        session_id=session.id,
        url=receiver.url,
        events=["message"],
        secret="k",
        retry_count=1,
    )
    first, second = _dead_letter(session, "one"), _dead_letter(session, "two")
    receiver.default = 200  # the customer fixed their endpoint

    browser = admin_login()
    staff = get_user_model().objects.get(username="staff")

    # "Resend selected" on the first dead letter.
    browser.get(f"{live_server.url}/admin/webhooks/delivery/?status__exact=dead")
    browser.find_element(By.CSS_SELECTOR, f"input.action-select[value='{first.pk}']").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("resend_selected")
    browser.find_element(By.NAME, "index").click()
    WebDriverWait(browser, 15).until(lambda b: "Queued 1 delivery" in b.page_source)
    wait_for(lambda: Delivery.objects.get(pk=first.pk).status == "delivered", what="the first resend")

    # "Resend all matching" the dead-letter filter: only the second is left.
    browser.get(f"{live_server.url}/admin/webhooks/delivery/?status__exact=dead")
    browser.find_element(By.CSS_SELECTOR, "a.resend-matching").click()
    WebDriverWait(browser, 15).until(lambda b: "1 delivery match" in b.page_source)
    browser.find_element(By.ID, "confirm-resend").click()
    WebDriverWait(browser, 15).until(lambda b: "Queued 1 delivery" in b.page_source)
    wait_for(lambda: Delivery.objects.get(pk=second.pk).status == "delivered", what="the second resend")

    for delivery in (first, second):
        delivery.refresh_from_db()
        assert delivery.resend_requested_by == staff
        attempts = list(delivery.attempts.order_by("number"))
        assert [(a.status_code, a.requested_by) for a in attempts] == [(500, None), (200, staff)]
        ids = [
            r.headers["x-webhook-id"]
            for r in receiver.received
            if delivery.payload["data"]["id"].encode() in r.body
        ]
        assert ids == [delivery.dispatch_id, delivery.dispatch_id]

    # The attempt history is shown inline on the delivery's page.
    browser.get(f"{live_server.url}/admin/webhooks/delivery/{first.pk}/change/")
    assert "staff" in browser.find_element(By.ID, "attempts-group").text
