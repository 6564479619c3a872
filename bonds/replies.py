"""The bond list's replies: the filtered rows, the data version that keys every cached reply, and the
JSON/CSV bodies, cached or streamed. Functions take plain arguments (no request), so the REST view and
the MCP server share them."""

from __future__ import annotations

import hashlib
import io
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from datetime import time as clock
from itertools import islice

from django.conf import settings
from django.core.cache import cache
from django.db.models import BooleanField, Count, Max, Q, QuerySet, Value
from django.utils import timezone

from bonds import statuses
from bonds.filters import DEFAULT_ORDER, BondFilters, bonds_filtered
from bonds.for_amount import bonds_for_amount, computed_in_request
from bonds.models import Bond, ProjectionSnapshot
from bonds.projections import listing_assumptions, projection_latest
from bonds.rendering import (
    CSV_CONTENT_TYPE,
    JSON_CONTENT_TYPE,
    JSON_FIELDS,
    csv_pieces,
    json_pieces,
    render_csv,
    render_json,
)

logger = logging.getLogger(__name__)

DATA_VERSION_KEY = "bonds:data-version"
# How long a process trusts the cached data version before re-deriving it from the database. With a
# shared cache (Redis) a refresh invalidates at once; with per-process local memory, this bounds how
# long another process can serve replies older than a refresh made elsewhere.
DATA_VERSION_SECONDS = 60


def bond_list(*, filters: BondFilters, today: date | None = None) -> QuerySet[Bond]:
    """Active bonds matching `filters`, in the filters' `sort` order, else in the documented one
    (bonds.filters.DEFAULT_ORDER: best net return first, bonds without one last, then name, bank,
    maturity and id). A bond maturing today or earlier is never listed, whatever the state of its
    source's refresh."""
    today = today or timezone.localdate()
    queryset = bonds_filtered(Bond.objects.filter(is_active=True, maturity_date__gt=today), filters)
    # Known only with a `horizon` (bonds.for_amount); a column of nulls otherwise.
    queryset = queryset.annotate(horizon_reachable=Value(None, output_field=BooleanField()))
    return queryset if filters.sort else queryset.order_by(*DEFAULT_ORDER)


def bond_rows(*, filters: BondFilters, limit: int | None = None, today: date | None = None) -> list[tuple]:
    """The list as tuples in JSON_FIELDS order (what the renderers take); with an `amount`, every
    figure for that amount (bonds.for_amount)."""
    if computed_in_request(filters):
        today = today or timezone.localdate()
        queryset = bonds_filtered(Bond.objects.filter(is_active=True, maturity_date__gt=today), filters)
        bonds = bonds_for_amount(queryset=queryset, filters=filters, today=today)
        return [tuple(getattr(bond, name) for name in JSON_FIELDS) for bond in bonds[:limit]]
    queryset = bond_list(filters=filters, today=today).values_list(*JSON_FIELDS)
    return list(queryset[:limit] if limit is not None else queryset)


# --- Data version and cached replies ----------------------------------------------------------------


# The process also remembers the version for a second, so a hot path makes no cache round trip at
# all (Redis included). A bump in this process forgets it at once; one made in another process is
# seen within this delay.
_LOCAL_VERSION_SECONDS = 1.0
_local_version: tuple[float, str] | None = None


def data_version() -> str:
    """A token that changes whenever listed data changes (refresh, admin edits); from the process
    memo, the cache, or derived from the database when the cache has none."""
    global _local_version
    remembered = _local_version
    now = time.monotonic()
    if remembered is not None and now - remembered[0] < _LOCAL_VERSION_SECONDS:
        return remembered[1]
    version = _shared_data_version()
    _local_version = (now, version)
    return version


def _shared_data_version() -> str:
    version = cache.get(DATA_VERSION_KEY)
    if version is None:
        bonds = Bond.objects.aggregate(
            latest=Max("updated_at"), total=Count("id"), active=Count("id", filter=Q(is_active=True))
        )
        latest_snapshot = ProjectionSnapshot.objects.aggregate(latest=Max("updated_at"))["latest"]
        raw = f"{bonds['latest']}|{bonds['total']}|{bonds['active']}|{latest_snapshot}"
        version = hashlib.sha256(raw.encode()).hexdigest()[:16]
        cache.set(DATA_VERSION_KEY, version, DATA_VERSION_SECONDS)
    return version


def data_version_bump() -> None:
    """Forget the version, so every cached reply is bypassed from the next request on."""
    global _local_version
    cache.delete(DATA_VERSION_KEY)
    _local_version = None
    with _local_lock:
        _local_replies.clear()


@dataclass(frozen=True)
class Reply:
    status: str
    content_type: str
    body: bytes


@dataclass(frozen=True)
class StreamedReply:
    """A full list rendered while it is sent: `pieces` yields the body. Once the last piece has been
    taken the whole body is in the reply cache; an iteration stopped early or failed caches nothing."""

    status: str
    content_type: str
    pieces: Iterator[bytes]


def _description(status: str, hint: str | None) -> str:
    """The JSON reply's `response.description`: the status's own, after the hint when there is one."""
    description = statuses.description(status)
    return f"{hint} {description}" if hint else description


def _render(
    status: str, filters: BondFilters, fmt: str, locale: str | None, bom: bool, today: date, hint: str | None
) -> Reply:
    if status in statuses.WITH_BONDS:
        limit = settings.BONDS_PREVIEW_LIMIT if status == statuses.PREVIEW else None
        rows = bond_rows(filters=filters, limit=limit, today=today)
    else:
        rows = []
    if fmt == "csv":
        return Reply(status, CSV_CONTENT_TYPE, render_csv(rows=rows, locale=locale, bom=bom))
    assumptions = _assumptions(status, today)
    body = render_json(
        status=status, description=_description(status, hint), rows=rows, assumptions=assumptions
    )
    return Reply(status, JSON_CONTENT_TYPE, body)


def _assumptions(status: str, today: date) -> dict | None:
    """What a JSON reply with bonds assumed (None for statuses without bonds: no database needed)."""
    return listing_assumptions(projection_latest(), today) if status in statuses.WITH_BONDS else None


def _pieces(
    status: str, filters: BondFilters, fmt: str, locale: str | None, bom: bool, today: date, hint: str | None
) -> Generator[bytes, None, None]:
    """The full list's body in pieces of BONDS_STREAM_ROWS rows, read from a database cursor one
    piece at a time (a server-side cursor on PostgreSQL), so its rows are never all in memory."""
    size = settings.BONDS_STREAM_ROWS
    if computed_in_request(filters):  # figures for the amount/horizon: computed in the request, then ordered
        rows: Iterable[tuple] = iter(bond_rows(filters=filters, today=today))
    else:
        rows = bond_list(filters=filters, today=today).values_list(*JSON_FIELDS).iterator(chunk_size=size)
    if fmt == "csv":
        return csv_pieces(rows=rows, locale=locale, bom=bom, rows_per_piece=size)
    return json_pieces(
        status=status,
        description=_description(status, hint),
        rows=rows,
        rows_per_piece=size,
        assumptions=_assumptions(status, today),
    )


# A small per-process memo in front of the shared cache: a full list is large, and fetching and
# unpickling it on every call (from Redis, or even from local memory) costs more than serving it.
# Entries are keyed like the shared cache, data version included, so a refresh made anywhere makes
# them unreachable; the memo only saves the transfer.
_LOCAL_MAX_ENTRIES = 32
_local_replies: OrderedDict[str, Reply] = OrderedDict()
_local_lock = threading.Lock()


def _local_get(key: str) -> Reply | None:
    with _local_lock:
        reply = _local_replies.get(key)
        if reply is not None:
            _local_replies.move_to_end(key)
        return reply


def _local_put(key: str, reply: Reply) -> None:
    with _local_lock:
        _local_replies[key] = reply
        while len(_local_replies) > _LOCAL_MAX_ENTRIES:
            _local_replies.popitem(last=False)


def _reply_key(
    status: str, filters: BondFilters, fmt: str, locale: str | None, bom: bool, today: date, hint: str | None
) -> str:
    token = (
        f"{filters.cache_token()}|{fmt}|{locale or ''}|{int(bom)}|{status}|{settings.BONDS_PREVIEW_LIMIT}"
        f"|{today.isoformat()}|{hint or ''}"
    )
    # The prefix names this module: a reply is pickled with its class's module path, so entries stored
    # under another path (by a process of another release) are never read back.
    return f"bonds:replies:{data_version()}:{hashlib.sha256(token.encode()).hexdigest()[:32]}"


def _reply_cached(key: str) -> Reply | None:
    reply = _local_get(key)
    if reply is None:
        reply = cache.get(key)
        if reply is not None:
            _local_put(key, reply)
    return reply


def _reply_store(key: str, reply: Reply) -> None:
    cache.set(key, reply, settings.BONDS_REPLY_CACHE_SECONDS)
    _local_put(key, reply)


def _sent_then_cached(
    key: str, status: str, content_type: str, head: list[bytes], rest: Generator[bytes, None, None]
) -> Iterator[bytes]:
    """`head` then `rest`, keeping a copy of the bytes so the finished body goes to the reply cache."""
    # BytesIO hands its buffer over at getvalue() (trimmed in place), so the copy costs the body once.
    body = io.BytesIO()
    try:
        for piece in head:
            body.write(piece)
            yield piece
        for piece in rest:
            body.write(piece)
            yield piece
    finally:
        rest.close()  # a consumer that stopped early (a client gone) closes the database cursor now
    # Only reached after the last piece: a consumer that stops early closes this generator at a
    # `yield`, and an error raises out of the loop, so neither leaves a partial body in the cache.
    try:
        _reply_store(key, Reply(status, content_type, body.getvalue()))
    except Exception:
        # The client has every byte already: raising now would cut the reply before its last chunk,
        # so a cache refusing it (full, or a value too large) costs the next call a render instead.
        logger.exception("A streamed bond list could not be stored in the reply cache")


# (time zone setting, until when, the local date): today, remembered until the next local midnight.
_today_memo: tuple[str, float, date] = ("", 0.0, date.min)


def _today() -> date:
    """timezone.localdate(), worked out again only at the next local midnight or when TIME_ZONE
    changes: the zone conversion is a visible share of a cached preview (docs/decisions/0007). (Ponte
    activates no per-request time zone, so the setting is the zone.)"""
    global _today_memo
    zone, until, today = _today_memo
    if time.time() < until and zone == settings.TIME_ZONE:
        return today
    zone = settings.TIME_ZONE
    local = timezone.localtime()
    today = local.date()
    midnight = datetime.combine(today + timedelta(days=1), clock.min, tzinfo=local.tzinfo)
    _today_memo = (zone, midnight.timestamp(), today)
    return today


def bond_list_reply(
    *,
    status: str,
    filters: BondFilters,
    fmt: str,
    locale: str | None,
    bom: bool = False,
    hint: str | None = None,
) -> Reply | StreamedReply:
    """The reply for a status and a query, cached per (data version, day, normalised query, format,
    locale, BOM, status): the day is in the key so a bond that matured since the reply was cached is
    not served. Statuses without bonds need no database at all. A repeated query with bonds costs no
    database query while the data version is cached. A full list missing from the cache and longer
    than BONDS_STREAM_ROWS comes as a StreamedReply, cached once it has been sent whole. `hint`, a
    sentence on how the key was sent, starts the JSON description (a CSV has none)."""
    today = _today()
    hint = hint if fmt == "json" else None
    if status not in statuses.WITH_BONDS:
        return _render(status, filters, fmt, locale, bom, today, hint)
    key = _reply_key(status, filters, fmt, locale, bom, today, hint)
    reply = _reply_cached(key)
    if reply is not None:
        return reply
    if status == statuses.PREVIEW:  # a few bonds: whole
        reply = _render(status, filters, fmt, locale, bom, today, hint)
        _reply_store(key, reply)
        return reply
    content_type = CSV_CONTENT_TYPE if fmt == "csv" else JSON_CONTENT_TYPE
    pieces = _pieces(status, filters, fmt, locale, bom, today, hint)
    head = list(islice(pieces, 2))  # the renderers always yield at least one piece
    if len(head) == 1:  # the whole list fits in one piece: answered whole, as a cached reply is
        reply = Reply(status, content_type, head[0])
        _reply_store(key, reply)
        return reply
    return StreamedReply(status, content_type, _sent_then_cached(key, status, content_type, head, pieces))
