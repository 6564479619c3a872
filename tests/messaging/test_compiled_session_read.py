"""core/compiled.py's compiled get, on the read it was made for: the session of a keyed message route
(messaging.selectors.session_find). It must hand back what the ORM's own get() does, field for field
(encrypted, binary, time, boolean columns converted the same way), read the database every time, and
compile once per connection."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.compiled import CompiledGet
from messaging.models import Session
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
    reader.get(pk=session.pk, account_id=session.account_id)  # compiles
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
