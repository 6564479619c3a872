"""A webhook body cut into smaller bodies of the same shape, each of at most `size` items, in order.

The view cannot afford to parse thousands of items before it answers (inbound.py turns each into a
typed event, about 0.1 ms apiece, and the cleaning of core.signed_json walks every value), so it only
decodes the JSON (the C decoder) and cuts the body where Meta's shape allows: the `messages` and
`statuses` of a WhatsApp Cloud change, the `messaging` items of a Messenger or Instagram entry. Each part
keeps what its items are read with (the entry's and the change's other keys, the `contacts` naming the
part's senders), so parsing the parts one after another (inbound.parse) gives the body's events in the
body's order. Anything that is not of the expected type is kept where it was: inbound.py skips it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messaging.channels import WHATSAPP_CLOUD

CLOUD_LISTS = ("messages", "statuses")


@dataclass(frozen=True)
class Piece:
    """Items of one entry (and, on WhatsApp Cloud, one change), with what they are read with."""

    entry: int
    change: int
    wrapper: dict[str, Any]  # the entry (page) or the change's value (cloud) without its items
    items: dict[str, list[Any]]  # list name → items

    def size(self) -> int:
        return sum(len(items) for items in self.items.values())


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _cloud_pieces(body: dict[str, Any], size: int) -> Iterator[Piece]:
    for e, entry in enumerate(_as_list(body.get("entry"))):
        for c, change in enumerate(_as_list(_as_dict(entry).get("changes"))):
            value = _as_dict(_as_dict(change).get("value"))
            tagged = [(name, item) for name in CLOUD_LISTS for item in _as_list(value.get(name))]
            rest = {key: v for key, v in value.items() if key not in CLOUD_LISTS}
            contacts = _contacts_by_sender(rest)
            for start in range(0, len(tagged), size):
                part: dict[str, list[Any]] = {}
                for name, item in tagged[start : start + size]:
                    part.setdefault(name, []).append(item)
                yield Piece(e, c, _naming(rest, contacts, part.get("messages", [])), part)


def _contacts_by_sender(value: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The value's `contacts` by `wa_id` (None when it has no list of them)."""
    if not isinstance(value.get("contacts"), list):
        return None
    index: dict[str, list[Any]] = {}
    for contact in value["contacts"]:
        index.setdefault(str(_as_dict(contact).get("wa_id")), []).append(contact)
    return index


def _naming(
    value: dict[str, Any], contacts: dict[str, list[Any]] | None, messages: list[Any]
) -> dict[str, Any]:
    """The value's other keys, its `contacts` only those naming the part's senders (a body of 9,000
    senders must not copy 9,000 contacts into each part)."""
    if contacts is None:
        return value
    senders = dict.fromkeys(str(_as_dict(m).get("from") or "") for m in messages)
    return {**value, "contacts": [c for sender in senders for c in contacts.get(sender, [])]}


def _page_pieces(body: dict[str, Any], size: int) -> Iterator[Piece]:
    for e, entry in enumerate(_as_list(body.get("entry"))):
        entry = _as_dict(entry)
        items = _as_list(entry.get("messaging"))
        rest = {key: v for key, v in entry.items() if key != "messaging"}
        for start in range(0, len(items), size):
            yield Piece(e, 0, rest, {"messaging": items[start : start + size]})


def _pieces(provider: str, body: Any, size: int) -> list[Piece]:
    body = _as_dict(body)
    return list(_cloud_pieces(body, size) if provider == WHATSAPP_CLOUD else _page_pieces(body, size))


def _assemble(provider: str, body: dict[str, Any], pieces: list[Piece]) -> dict[str, Any]:
    """One body of Meta's shape holding `pieces` (on WhatsApp Cloud, consecutive pieces of one entry
    in one entry)."""
    entries_in = _as_list(body.get("entry"))
    entries: list[dict[str, Any]] = []
    last_entry = None
    for piece in pieces:
        if provider != WHATSAPP_CLOUD:
            entries.append({**piece.wrapper, **piece.items})
            continue
        source = _as_dict(entries_in[piece.entry])
        if piece.entry != last_entry:
            entries.append({key: v for key, v in source.items() if key != "changes"})
            last_entry = piece.entry
        change = _as_dict(_as_list(source.get("changes"))[piece.change])
        rest = {key: v for key, v in change.items() if key != "value"}
        entries[-1].setdefault("changes", []).append({**rest, "value": {**piece.wrapper, **piece.items}})
    top = {key: v for key, v in body.items() if key != "entry"}
    return {**top, "entry": entries}


def body_split(provider: str, body: Any, *, size: int) -> list[tuple[dict[str, Any], int]]:
    """`body` as consecutive bodies of at most `size` items each, with their item counts; [] when it
    holds no item."""
    parts: list[tuple[dict[str, Any], int]] = []
    group: list[Piece] = []
    count = 0
    for piece in _pieces(provider, body, size):
        if group and count + piece.size() > size:
            parts.append((_assemble(provider, body, group), count))
            group, count = [], 0
        group.append(piece)
        count += piece.size()
    if group:
        parts.append((_assemble(provider, body, group), count))
    return parts
