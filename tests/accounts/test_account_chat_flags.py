"""The account area's chat list (issue 41): a connected session's page lists its chats with the flags
the phone shows (pinned, archived, muted until, marked unread, labels), set through the API or on the
phone, and filters by each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.models import Session
from messaging.services import chat_state, labels
from messaging.services import sessions as session_services

ANA = "5511911110001@s.whatsapp.net"
BIA = "5511911110002@s.whatsapp.net"


@pytest.fixture
def session(customer) -> Session:
    _, account = customer
    session = session_services.session_create(account=account, name="loja")
    session_services.session_connect(session=session)
    session_services.sandbox_scan(session=Session.objects.get(pk=session.pk), phone="5511999990001")
    session = Session.objects.get(pk=session.pk)
    for jid in (ANA, BIA):
        session_services.sandbox_inject(session=session, event="message", data={"from": jid, "text": "oi"})
    return session


def rows(browser, session, wanted=""):
    reply = browser.get(f"/account/sessions/{session.pk}/", {"chats": wanted} if wanted else {})
    assert reply.status_code == 200
    return {row.jid: row for row in reply.context["chats"]}, reply.content.decode()


def test_the_session_page_lists_chats_with_their_flags_and_filters_them(customer, session) -> None:
    browser, _ = customer
    chat_state.chat_state_set(session=session, chat=ANA, action="pin", value=True)
    until = (timezone.now() + timedelta(hours=3)).isoformat()
    chat_state.chat_state_set(session=session, chat=ANA, action="mute", value=until)
    chat_state.chat_state_set(session=session, chat=BIA, action="archive", value=True)
    labels.label_create(session=session, name="VIP", color=2)
    labels.chat_label_set(session=session, chat=ANA, label_id="1", labeled=True)
    session_services.sandbox_inject(session=session, event="chat_unread", data={"chat": BIA, "unread": True})

    shown, page = rows(browser, session)
    assert list(shown) == [ANA, BIA]  # the pinned chat on top
    assert shown[ANA].pinned and shown[ANA].muted_until is not None and shown[ANA].labels == ["VIP"]
    assert shown[BIA].archived and shown[BIA].marked_unread and not shown[BIA].pinned
    assert 'class="status flag-pinned"' in page and "VIP" in page and "Marked unread" in page
    assert list(rows(browser, session, "archived")[0]) == [BIA]
    assert list(rows(browser, session, "muted")[0]) == [ANA]
    assert list(rows(browser, session, "pinned")[0]) == [ANA]
    assert list(rows(browser, session, "nonsense")[0]) == [ANA, BIA]


def test_the_chat_list_is_in_portuguese_for_a_portuguese_reader(customer, session) -> None:
    browser, _ = customer
    chat_state.chat_state_set(session=session, chat=ANA, action="pin", value=True)
    reply = browser.get(f"/account/sessions/{session.pk}/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    page = reply.content.decode()
    assert "Fixada" in page and "Conversas" in page
