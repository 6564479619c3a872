"""Every string a customer reads in Portuguese is Portuguese: the account area's pages and the landing page,
rendered in pt-BR with data on every table (a key, a session waiting for its QR code, a webhook, a dead
letter with attempts), carry no English words in their visible text (issue 45: "delivered (reenvio)").

Visible text is what a reader sees: scripts, styles, code (`<code>`, `<pre>`, `.mono`: ids, URLs, API
values) and the customer's own data (emails, names) are left out. English words are a list of common ones
that are not also Portuguese ("a", "no", "data", "web" are both, so not listed) plus the words the account
area's own English texts use."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from messaging.services import sessions as session_services
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create
from webhooks.services import emit

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR"}
ENGLISH_WORDS = """
    the and of to your you with for from this that these those is are was were be been will would can could
    not all any some every one two none yes only also here there when where what which who how why after
    before until since into onto over under about again once more most other than then them they their it
    its our we us my me he she his her if or but so just does did done has have had make made get got
    set new old first last next back now still yet always never show shown hide see read write written
    send sent sending resend resent deliver delivered delivery deliveries dead letter letters pending
    failed failure retry retries attempt attempts outcome succeeded success error errors waiting wait
    key keys session sessions account accounts plan plans usage today limit limits unlimited allowed
    allows active revoked expired disabled enabled enable delete deleted edit saved save create created
    register registered sign signed out password email issue issued revoke role roles events event target
    statuses filter created name phone paired pairing code connect connected disconnected logout
    log scan refresh copy copied once kept keep leave empty secret signature signatures verify webhooks
    business request requested subscription page found available button form visit something went
    wrong home docs
"""
ENGLISH = frozenset(ENGLISH_WORDS.split())
# Names Ponte keeps in every language: the product, HTTP and API terms, units (README, the .po's header).
KEPT = frozenset({"webhook", "webhooks", "api", "http", "https", "url", "qr", "mcp", "ponte", "json", "csv"})
SKIPPED = {"script", "style", "code", "pre", "kbd", "option"}


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.skipping: list[str] = []
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag in SKIPPED or "mono" in classes or "customer-data" in classes:
            self.skipping.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            # Identifiers stay whole (group_leave, no_subscription); "QR code" is Portuguese as well.
            data = data.replace("QR code", "QR")
            self.words += re.findall(r"[A-Za-z_À-ÿ]+(?:[-'][A-Za-z_À-ÿ]+)*", data)


def english_words(html: str, *, own_data: set[str]) -> set[str]:
    body = html[html.index("<body") :]
    for value in own_data:
        body = body.replace(value, "")
    parser = VisibleText()
    parser.feed(body)
    # ALL-CAPS words are constants and acronyms (AVAILABLE, FGC), not sentences.
    return {
        word
        for word in parser.words
        if word.lower() in ENGLISH and word.lower() not in KEPT and not (word.isupper() and len(word) > 1)
    }


@pytest.fixture
def full_account(customer, allow_loopback, settings):
    """The customer with a row in every table of the area."""
    browser, account = customer
    browser.post("/account/keys/", {"name": "chave-loja", "role": "admin"}, **PT)
    session = session_services.session_create(account=account, name="loja")
    webhook_create(
        account=account, session_id=session.pk, url="http://127.0.0.1:9/gancho", events=["message"]
    )
    emit(session_id=session.pk, name="message", data={"text": "oi"}, chat="5511@s.whatsapp.net")
    delivery = Delivery.objects.get(session=session)
    Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.DEAD, last_error="HTTP 500")
    for number, outcome in ((1, "retry"), (2, "dead")):
        delivery.attempts.create(
            number=number, scheduled_at=delivery.created_at, status_code=500, outcome=outcome
        )
    return browser, account, session, delivery


def account_pages(session, delivery) -> list[str]:
    webhook = delivery.webhook_id
    return [
        "/",
        "/account/",
        "/account/keys/",
        "/account/sessions/",
        f"/account/sessions/{session.pk}/",
        "/account/webhooks/",
        f"/account/webhooks/{webhook}/edit/",
        "/account/deliveries/",
        "/account/deliveries/?status=dead",
        "/account/no-such-page/",
    ]


def test_no_english_words_on_the_account_areas_pages_in_portuguese(full_account) -> None:
    browser, account, session, delivery = full_account
    # The session's id is the customer's too: a random UUID such as d194f0c6-b263-4be3-... held "be".
    own = {account.user.email, "chave-loja", "loja", str(session.pk), delivery.dispatch_id}
    found = {}
    for path in account_pages(session, delivery):
        reply = browser.get(path, **PT)
        assert reply.status_code in (200, 404), path
        words = english_words(reply.content.decode(), own_data=own)
        if words:
            found[path] = sorted(words)
    assert not found, found


@pytest.mark.parametrize(
    "path",
    ["/account/login/", "/account/signup/", "/account/password-reset/", "/account/password-reset/sent/", "/"],
)
def test_no_english_words_on_the_signed_out_pages_in_portuguese(client, default_plans, path) -> None:
    words = english_words(client.get(path, follow=True, **PT).content.decode(), own_data=set())
    assert not words, words


def test_the_check_finds_english_words_in_a_page() -> None:
    page = "<body><p>Entregue</p><p>delivered (reenvio)</p><code>message</code><script>the</script></body>"
    assert english_words(page, own_data=set()) == {"delivered"}
