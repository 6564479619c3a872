"""core/compiled.py's compiled statements, on what they were made for: the session read of a keyed
message route (messaging.selectors.session_find) and a send's message row (messaging.services.messages).
They must do what the ORM's own get() and bulk_create() do, field for field (encrypted, binary, time,
boolean, JSON columns converted the same way), run their statement every time, one statement, compiled
once per connection."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.db.models import Value
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.compiled import CompiledGet, CompiledUpsert
from messaging.models import Message, Session
from tests.messaging.conftest import other_account_key

pytestmark = pytest.mark.django_db


def _all_fields(session: Session) -> dict:
    return {field.attname: getattr(session, field.attname) for field in Session._meta.concrete_fields}


def test_a_compiled_get_returns_the_session_the_orm_returns_field_for_field(session) -> None:
    Session.objects.filter(pk=session.pk).update(
        proxy="socks5://user:secret@127.0.0.1:1080",  # encrypted at rest, clear once read
        profile_picture=b"\x89PNG\r\n",
        qr_expires_at=dt.datetime(2026, 11, 28, 12, 30, tzinfo=dt.UTC),
        official=True,
    )
    reader = CompiledGet(Session, "pk", "account_id")

    compiled = reader.get(pk=session.pk, account_id=session.account_id)

    expected = Session.objects.get(pk=session.pk)
    assert _all_fields(compiled) == _all_fields(expected)
    assert compiled.proxy == "socks5://user:secret@127.0.0.1:1080"
    assert bytes(compiled.profile_picture) == b"\x89PNG\r\n"
    assert not compiled._state.adding and compiled._state.db == "default"


def test_a_compiled_get_finds_nothing_for_another_accounts_session_or_an_unknown_id(
    session, make_account, make_key
) -> None:
    other, _key = other_account_key(make_account, make_key)
    reader = CompiledGet(Session, "pk", "account_id")

    assert reader.get(pk=session.pk, account_id=other.pk) is None
    assert reader.get(pk=uuid.uuid4(), account_id=session.account_id) is None
    assert reader.get(pk=str(session.pk), account_id=session.account_id).pk == session.pk  # a text id too


def test_a_compiled_get_reads_the_database_each_time_in_one_statement(session) -> None:
    reader = CompiledGet(Session, "pk", "account_id")
    assert not reader.kept()
    reader.get(pk=session.pk, account_id=session.account_id)  # compiles
    assert reader.kept()
    Session.objects.filter(pk=session.pk).update(name="renamed")

    with CaptureQueriesContext(connection) as captured:
        again = reader.get(pk=session.pk, account_id=session.account_id)

    assert again.name == "renamed"
    assert len(captured.captured_queries) == 1
    assert captured.captured_queries[0]["sql"].startswith("SELECT")


def test_a_compiled_session_saves_like_one_the_orm_read(session) -> None:
    reader = CompiledGet(Session, "pk", "account_id")
    found = reader.get(pk=session.pk, account_id=session.account_id)
    found.name = "saved"
    found.save(update_fields=["name"])
    assert Session.objects.get(pk=session.pk).name == "saved"


def test_a_compiled_get_refuses_other_names_and_none(session) -> None:
    reader = CompiledGet(Session, "pk", "account_id")
    with pytest.raises(TypeError):
        reader.get(pk=session.pk)
    with pytest.raises(ValueError):
        reader.get(pk=session.pk, account_id=None)


CHAT = "5511988887777@s.whatsapp.net"
COMPLETED = ["sender", "push_name", "from_me", "direction", "type", "content", "status", "timestamp"]


def _upsert() -> CompiledUpsert:
    return CompiledUpsert(Message, unique_fields=["session", "chat", "message_id"], update_fields=COMPLETED)


def _message(session: Session, message_id: str, **fields) -> Message:
    values = {
        "chat": CHAT,
        "sender": "5511999990001@s.whatsapp.net",
        "push_name": "Acme",
        "from_me": True,
        "direction": Message.Direction.OUTBOUND,
        "type": "text",
        "content": {"text": "olá", "nested": [1, 2.5, None]},
        "status": Message.Status.SENT,
        "timestamp": timezone.now(),
    }
    return Message(session=session, message_id=message_id, **{**values, **fields})


def _row(message_id: str) -> dict:
    row = Message.objects.filter(message_id=message_id).values().get()
    return {k: v for k, v in row.items() if k not in ("id", "message_id", "timestamp", "created_at")}


def test_a_compiled_upsert_writes_the_row_bulk_create_writes(session) -> None:
    upsert = _upsert()
    first = upsert.save(_message(session, "FIRST"))  # Django's bulk_create, its statement kept
    second = upsert.save(_message(session, "SECOND"))  # the kept statement

    assert first.pk and second.pk and second.pk != first.pk
    assert not second._state.adding and second._state.db == "default"
    assert _row("SECOND") == _row("FIRST")
    assert Message.objects.get(pk=second.pk).content == {"text": "olá", "nested": [1, 2.5, None]}


def test_a_compiled_upsert_completes_a_row_stored_before_and_hands_back_its_id(session) -> None:
    upsert = _upsert()
    upsert.save(_message(session, "WARM"))
    echo = Message.objects.create(session=session, chat=CHAT, message_id="ECHO", type="unknown")

    completed = upsert.save(_message(session, "ECHO", status=Message.Status.DELIVERED))

    assert completed.pk == echo.pk
    stored = Message.objects.get(pk=echo.pk)
    assert (stored.type, stored.status, stored.content["text"]) == ("text", "delivered", "olá")
    assert Message.objects.filter(message_id="ECHO").count() == 1


def test_a_compiled_upsert_after_the_first_is_one_statement(session) -> None:
    upsert = _upsert()
    upsert.save(_message(session, "WARM"))
    assert upsert.kept()
    with CaptureQueriesContext(connection) as captured:
        upsert.save(_message(session, "COUNTED"))
    assert [q["sql"].split()[0] for q in captured.captured_queries] == ["INSERT"]


def test_an_object_holding_an_expression_is_written_by_django(session) -> None:
    upsert = _upsert()
    upsert.save(_message(session, "WARM"))
    saved = upsert.save(_message(session, "EXPRESSION", push_name=Value("from an expression")))
    assert Message.objects.get(pk=saved.pk).push_name == "from an expression"
