"""GET /bonds/api/ for a full list missing from the reply cache: longer than BONDS_STREAM_ROWS, it is
streamed in pieces read from a database cursor, with the bytes of the whole render, and cached only
once it has been sent whole. (The tests set BONDS_STREAM_ROWS to 2, so a handful of bonds streams.)"""

from __future__ import annotations

import http.client
import json
import tracemalloc
from datetime import date

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.db import DatabaseError, connection
from django.http import StreamingHttpResponse

from bonds import statuses
from bonds.filters import BondFilters
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.rendering import ADDED_FIELDS, csv_pieces, json_pieces, render_csv, render_json
from bonds.replies import bond_list, bond_list_reply, bond_rows, data_version_bump
from tests.bonds.rows import with_ids
from tests.bonds.test_list_api import URL, bearer, bonds, offer  # noqa: F401  (bonds: the fixture)
from tests.faults import kill_the_connection_of

pytestmark = pytest.mark.django_db
# DB_SERVER_SIDE_CURSORS=false (behind a pooler in transaction mode): Django then fetches every row at once.
needs_server_side_cursors = pytest.mark.skipif(
    connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS", False),
    reason="without server-side cursors PostgreSQL's rows are all fetched before the first piece",
)
# Cells a CSV writer must quote or a spreadsheet would run, accents, and an empty rating.
ODD_NAMES = ['Quote " and, comma', "Semi;colon", "Line\r\nbreak", "=SUM(A1)", "Ação Ñ €", "-", "@home"]
CASES = [
    ("format=json", lambda rows: render_json(status="ok", description=statuses.description("ok"), rows=rows)),
    ("format=csv", lambda rows: render_csv(rows=rows, locale=None)),
    ("format=csv&locale=pt-BR", lambda rows: render_csv(rows=rows, locale="pt-BR", bom=True)),
    ("format=csv&bom=1", lambda rows: render_csv(rows=rows, locale=None, bom=True)),
]


@pytest.fixture
def many(request) -> list[Bond]:
    """The list fixture plus offers with odd names, in more pieces than the head the view takes."""
    request.getfixturevalue("bonds")
    extra = [offer(100 + n, name=name, rating=None if n % 2 else "-") for n, name in enumerate(ODD_NAMES)]
    bond_offers_upsert(source="odd", offers=extra)
    return list(Bond.objects.filter(is_active=True))


@pytest.fixture
def key(key, settings) -> str:
    """The bonds key, with pages of two rows so a short list spans several."""
    settings.BONDS_STREAM_ROWS = 2
    return key


def every_row() -> list[tuple]:
    return bond_rows(filters=BondFilters())


@pytest.mark.parametrize(("query", "whole_render"), CASES)
def test_the_streamed_reply_is_byte_identical_to_the_whole_render(api_client, many, key, query, whole_render):
    response = api_client.get(f"{URL}?{query}", **bearer(key))
    assert isinstance(response, StreamingHttpResponse)
    assert b"".join(response.streaming_content) == whole_render(every_row())


@pytest.mark.parametrize(("query", "whole_render"), CASES)
def test_a_streamed_reply_has_the_headers_of_a_whole_one_but_its_length(
    api_client, many, key, settings, query, whole_render
):
    streamed = api_client.get(f"{URL}?{query}", **bearer(key))
    body = b"".join(streamed.streaming_content)
    data_version_bump()  # forget the cached reply, and render it whole this time
    settings.BONDS_STREAM_ROWS = 500
    whole = api_client.get(f"{URL}?{query}", **bearer(key))
    assert not whole.streaming and whole.content == body
    assert {**streamed.headers, "Content-Length": str(len(body))} == dict(whole.headers)
    assert streamed["X-Ponte-Status"] == "ok"


def test_a_list_that_fits_in_one_piece_is_answered_whole(api_client, many, key, settings):
    settings.BONDS_STREAM_ROWS = 500
    response = api_client.get(f"{URL}?format=csv", **bearer(key))
    assert not response.streaming and response.content == render_csv(rows=every_row(), locale=None)


def test_a_streamed_reply_is_cached_once_sent_whole(api_client, many, key, django_assert_max_num_queries):
    first = api_client.get(f"{URL}?format=csv", **bearer(key))
    body = b"".join(first.streaming_content)
    with django_assert_max_num_queries(1):  # at most the key lookup: the list comes from the cache
        again = api_client.get(f"{URL}?format=csv", **bearer(key))
    assert not again.streaming and again.content == body


@pytest.mark.django_db(transaction=True)  # closing a response closes its connection
def test_an_interrupted_stream_caches_nothing(api_client, many, key):
    interrupted = api_client.get(f"{URL}?format=csv", **bearer(key))
    pieces = iter(interrupted.streaming_content)
    first = next(pieces)
    interrupted.close()  # what the server does when the client goes away
    again = api_client.get(f"{URL}?format=csv", **bearer(key))
    assert again.streaming, "a partial body was cached"
    body = b"".join(again.streaming_content)
    assert body.startswith(first) and body == render_csv(rows=every_row(), locale=None)


@pytest.mark.django_db(transaction=True)
@needs_server_side_cursors
def test_a_database_error_mid_stream_raises_to_the_server_and_caches_nothing(api_client, many, key):
    """The error reaches the WSGI server (core/wsgi_bridge.py then ends the response without its last
    chunk), and the next call renders again. The fault: the database connection killed under the cursor
    (PostgreSQL), or a row SQLite cannot read back (a date that does not exist)."""
    last = bond_list(filters=BondFilters()).values_list("pk", flat=True).last()
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            table = Bond._meta.db_table
            cursor.execute(f"UPDATE {table} SET maturity_date = '2999-13-45' WHERE id = %s", [last])
    streamed = api_client.get(f"{URL}?format=json", **bearer(key))
    pieces = iter(streamed.streaming_content)
    next(pieces)
    if connection.vendor == "postgresql":
        kill_the_connection_of(connection)
    with pytest.raises((DatabaseError, ValueError)):  # ValueError: SQLite's date converter
        b"".join(pieces)
    streamed.close()
    if connection.vendor == "postgresql":
        connection.close()  # the killed connection is not reused by what follows
    else:
        Bond.objects.filter(pk=last).update(maturity_date=date(2030, 1, 1))
    again = api_client.get(f"{URL}?format=json", **bearer(key))
    assert again.streaming, "a partial body was cached"
    assert b"".join(again.streaming_content).endswith(b"]}")


class ReplyRefusingCache(LocMemCache):
    """A cache that refuses the bond replies (as a full Redis refuses a write), and keeps the rest."""

    def set(self, key, value, *args, **kwargs) -> None:
        if key.startswith("bonds:replies:"):
            raise ConnectionError("OOM command not allowed when used memory > 'maxmemory'")
        super().set(key, value, *args, **kwargs)


def test_a_cache_refusing_the_finished_reply_does_not_cut_it(api_client, many, key, settings):
    settings.CACHES = {"default": {"BACKEND": f"{__name__}.ReplyRefusingCache", "LOCATION": "refusing"}}
    response = api_client.get(f"{URL}?format=csv", **bearer(key))
    assert b"".join(response.streaming_content) == render_csv(rows=every_row(), locale=None)


# --- Memory ---------------------------------------------------------------------------------------


def counted_rows(count: int, pulled: list[int]):
    """`count` bond rows made on demand, noting in `pulled[0]` how many were taken so far."""
    for number in range(count):
        pulled[0] += 1
        yield (number, f"Bond {number}", 77, "Banco", "cdb", "cdi*", 1.1, True, False, False, 1000.0,
               date(2030, 1, 1), False, "brAA", 0.99, 0.12, 0.07, 0, 0, 1.1, 0.99999, None,
               *[None] * len(ADDED_FIELDS))  # fmt: skip


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_the_pieces_join_to_the_whole_render_whatever_the_lengths(count, size):
    rows = with_ids(
        (f'Bond "{n}", =x\r\né', n, "Banco; S.A.", "cdb", "cdi*", 1.05 + n / 1e5, n % 2 == 0, False, True,
         1000.0, date(2030, 1, 1), False, None if n % 3 else "-", 0.97, None, 0.05, None, 3, 1.1, 0.99997,
         "redemption")
        for n in range(count)
    )  # fmt: skip
    json_joined = b"".join(json_pieces(status="ok", description="d é", rows=iter(rows), rows_per_piece=size))
    assert json_joined == render_json(status="ok", description="d é", rows=rows)
    # With what the figures assumed (the head of the envelope) too.
    assumed = {"cdi_path": [{"from": "2026-11-23", "cdi": 0.1415, "meeting": None, "estimated_date": False}]}
    pieces = json_pieces(
        status="ok", description="d", rows=iter(rows), rows_per_piece=size, assumptions=assumed
    )
    whole = render_json(status="ok", description="d", rows=rows, assumptions=assumed)
    assert b"".join(pieces) == whole and json.loads(whole)["assumptions"] == assumed
    for locale, bom in ((None, False), (None, True), ("pt-BR", True)):
        pieces = list(csv_pieces(rows=iter(rows), locale=locale, bom=bom, rows_per_piece=size))
        assert len(pieces) == max(1, -(-count // size))
        assert b"".join(pieces) == render_csv(rows=rows, locale=locale, bom=bom)


@pytest.mark.parametrize("render", ["json", "csv"])
def test_the_renderers_take_rows_one_piece_at_a_time(render):
    pulled = [0]
    rows = counted_rows(10_000, pulled)
    if render == "json":
        pieces = json_pieces(status="ok", description="", rows=rows, rows_per_piece=100)
    else:
        pieces = csv_pieces(rows=rows, locale=None, rows_per_piece=100)
    for number, _piece in enumerate(pieces, start=1):
        # The piece's rows and the next piece's (read ahead to know whether this one is the last).
        assert pulled[0] <= (number + 1) * 100
    assert pulled[0] == 10_000


def traced_peak(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@needs_server_side_cursors
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_streamed_list_peaks_at_a_fraction_of_the_whole_render(db, settings, fmt):
    """Python memory (tracemalloc) while a 3,000-bond list is rendered and the pieces dropped as sent:
    the stream holds a piece's rows and the copy of the body for the cache, the whole render every row,
    its dicts or text, and the body."""
    Bond.objects.bulk_create(
        Bond(source="many", natural_key=f"m{n}", name=f"Bond {n:05d}", bank=77, bank_name="Banco Inter",
             product="cdb", index="cdi*", rate=1.1, maturity_date=date(2031, 1, 1), rating="brAA",
             net_annualized_return=0.1 + n / 1e6, real_annualized_return=0.05)
        for n in range(3000)
    )  # fmt: skip
    settings.BONDS_STREAM_ROWS = 100

    def streamed() -> None:
        reply = bond_list_reply(status="ok", filters=BondFilters(), fmt=fmt, locale=None)
        for _piece in reply.pieces:
            pass

    def whole() -> None:
        rows = bond_rows(filters=BondFilters())
        if fmt == "csv":
            render_csv(rows=rows, locale=None)
        else:
            render_json(status="ok", description="", rows=rows)

    whole_peak = traced_peak(whole)
    data_version_bump()
    streamed_peak = traced_peak(streamed)
    assert streamed_peak < whole_peak / 2, (streamed_peak, whole_peak)


@pytest.mark.django_db(transaction=True)
def test_through_the_web_server_a_stream_cut_by_an_error_is_an_unfinished_chunked_body(many, key):
    """Served by uvicorn and core/wsgi_bridge.py: the reply is chunked (no Content-Length), and an
    error mid-stream ends the connection without the last chunk, so no client takes it as complete."""
    from config.asgi import application
    from tests.web.test_wsgi_bridge import serving

    last = bond_list(filters=BondFilters()).values_list("pk", flat=True).last()
    # A date the driver cannot read back, so the last piece fails: SQLite keeps any text in a date
    # column; PostgreSQL's `infinity` is a date Python has no value for.
    unreadable = "infinity" if connection.vendor == "postgresql" else "2999-13-45"
    with connection.cursor() as cursor:
        table = Bond._meta.db_table
        cursor.execute(f"UPDATE {table} SET maturity_date = %s WHERE id = %s", [unreadable, last])
    with serving(application, lifespan="on") as port:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        client.request("GET", f"{URL}?format=csv", headers={"Authorization": f"Bearer {key}"})
        response = client.getresponse()
        assert response.status == 200 and response.getheader("Transfer-Encoding") == "chunked"
        assert response.getheader("Content-Length") is None
        with pytest.raises(http.client.IncompleteRead) as cut:
            response.read()
    assert cut.value.partial.startswith(b"name,bank,")
