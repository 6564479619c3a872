"""Every operation of the client, once: path, parameters, body and how the reply is read. The sync
`Client` and the async `AsyncClient` both send these (one line per method in each)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import httpx

from ponte_client._http import Op
from ponte_client.errors import BondsAccessError
from ponte_client.mentions import mentioning
from ponte_client.models import (
    Bond,
    BondList,
    Connection,
    Page,
    PairingCode,
    PollResults,
    QrCode,
    SentMessage,
    Session,
    Webhook,
)

T = TypeVar("T")
JSON = dict[str, Any]
BOND_OK = ("ok", "preview")


def _json(response: httpx.Response) -> Any:
    return response.json()


def _none(response: httpx.Response) -> None:
    return None


def _one(build: Callable[[JSON], T]) -> Callable[[httpx.Response], T]:
    return lambda response: build(response.json())


def _page(build: Callable[[JSON], T]) -> Callable[[httpx.Response], Page[T]]:
    def parse(response: httpx.Response) -> Page[T]:
        body = response.json()
        meta = body.get("meta", {})
        items = [build(item) for item in body["data"]]
        return Page(
            items,
            meta.get("total", len(items)),
            meta.get("page", 1),
            meta.get("limit", len(items)),
            meta.get("totalPages", 1),
        )

    return parse


def _csv(values: Sequence[str | int] | str | None) -> str | None:
    if values is None or isinstance(values, str):
        return values
    return ",".join(str(v) for v in values)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


# --- bonds (Authorization: Bearer) -------------------------------------------------------------------


def _bond_list(response: httpx.Response) -> BondList:
    body = response.json()
    status, description = body["response"]["status"], body["response"]["description"]
    if status not in BOND_OK:
        raise BondsAccessError(200, status, description, body=body)
    return BondList(status, description, [Bond.from_json(row) for row in body["bonds"]])


def _bond_csv(response: httpx.Response) -> str:
    status = response.headers.get("X-Ponte-Status", "ok")
    if status not in BOND_OK:
        raise BondsAccessError(200, status, f"The bond list answered {status}.", body=response.text)
    return response.text


# The bond list's documented values (docs/bonds.md; a test keeps them in step with the server). The
# server ignores anything else and lists every bond, so a typo deserves a warning here.
BOND_PRODUCTS = ("cdb", "lci", "lca", "cri", "cra", "deb", "tpf", "td", "lf", "misc")
BOND_SORT_FIELDS = (
    "id",
    "bank",
    "rate",
    "min_investment",
    "maturity_date",
    "payment_probability",
    "net_annualized_return",
    "real_annualized_return",
    "liquidity_days",
    "grace_period_days",
    "net_return_cdi_percent",
    "covered_payment_probability",
    "fgc_covered_share",
    "first_payment_date",
)


class BondFilterWarning(UserWarning):
    """A bond filter value outside the documented lists: the server ignores it (no filter, or the
    default order)."""


def _warn_on_odd_bond_filters(product: Any, sort: Any) -> None:
    products = [product] if isinstance(product, str) else list(product or [])
    for item in (part.strip() for value in products for part in str(value).split(",")):
        if item and item.lower() not in BOND_PRODUCTS:
            message = f"product {item!r} is not one of {', '.join(BOND_PRODUCTS)}: the server ignores it."
            warnings.warn(message, BondFilterWarning, stacklevel=5)
    if sort is not None and str(sort).strip().lstrip("+-") not in BOND_SORT_FIELDS:
        message = (
            f"sort {sort!r} is not one of {', '.join(BOND_SORT_FIELDS)} ('-' first: descending): ignored."
        )
        warnings.warn(message, BondFilterWarning, stacklevel=5)


def bonds_query(**filters: Any) -> dict[str, Any]:
    _warn_on_odd_bond_filters(filters.get("product"), filters.get("sort"))
    dates = {name: filters.get(name) for name in ("maturity_from", "maturity_to")}
    return {
        "product": _csv(filters.get("product")),
        "index": _csv(filters.get("index")),
        "bank": _csv(filters.get("bank")),
        "tax_free": _flag(filters.get("tax_free")),
        "fgc": _flag(filters.get("fgc")),
        **{name: None if day is None else str(day) for name, day in dates.items()},  # date: ISO
        "amount": filters.get("amount"),
        "rating_min": filters.get("rating_min"),
        "sort": filters.get("sort"),
    }


def bonds_list(**filters: Any) -> Op[BondList]:
    return Op("GET", "/bonds/api/", _bond_list, auth="bearer", params=bonds_query(**filters))


def bonds_csv(*, locale: str | None = None, **filters: Any) -> Op[str]:
    params = {**bonds_query(**filters), "format": "csv", "locale": locale}
    return Op("GET", "/bonds/api/", _bond_csv, auth="bearer", params=params)


# --- sessions ---------------------------------------------------------------------------------------


def sessions_create(name: str) -> Op[Session]:
    return Op("POST", "/api/sessions", _one(Session.from_json), json={"name": name})


def sessions_list(status: str | None, page: int, limit: int) -> Op[Page[Session]]:
    params = {"status": status, "page": page, "limit": limit}
    return Op("GET", "/api/sessions", _page(Session.from_json), params=params)


def sessions_get(session_id: str) -> Op[Session]:
    return Op("GET", f"/api/sessions/{session_id}", _one(Session.from_json))


def sessions_connect(session_id: str) -> Op[Connection]:
    return Op("POST", f"/api/sessions/{session_id}/connect", _one(Connection.from_json))


def sessions_qrcode(session_id: str) -> Op[QrCode]:
    return Op(
        "GET", f"/api/sessions/{session_id}/qrcode", _one(QrCode.from_json), params={"format": "base64"}
    )


def sessions_pairing_code(session_id: str, phone_number: str) -> Op[PairingCode]:
    body = {"phoneNumber": phone_number}
    return Op("POST", f"/api/sessions/{session_id}/pairing-code", _one(PairingCode.from_json), json=body)


def sessions_sandbox_scan(session_id: str, phone: str, pairing_code: str) -> Op[Session]:
    body = {"phone": phone, "pairingCode": pairing_code}
    return Op("POST", f"/api/sandbox/sessions/{session_id}/scan", _one(Session.from_json), json=body)


def sessions_logout(session_id: str) -> Op[JSON]:
    return Op("POST", f"/api/sessions/{session_id}/logout", _json)


def sessions_delete(session_id: str) -> Op[None]:
    return Op("DELETE", f"/api/sessions/{session_id}", _none)


# --- messages, contacts, groups ---------------------------------------------------------------------


def messages_send_text(
    session_id: str,
    to: str,
    text: str,
    quoted_message_id: str | None,
    mentions: Sequence[str] = (),
    mention_all: bool = False,
) -> Op[SentMessage]:
    body = mentioning({"sessionId": session_id, "to": to, "text": text}, mentions, mention_all)
    if quoted_message_id:
        body["quoted"] = {"messageId": quoted_message_id}
    return Op("POST", "/api/messages/send", _one(SentMessage.from_json), json=body)


def messages_send_location(
    session_id: str, to: str, latitude: float, longitude: float, name: str, address: str
) -> Op[SentMessage]:
    body = {
        "sessionId": session_id,
        "to": to,
        "latitude": latitude,
        "longitude": longitude,
        "name": name,
        "address": address,
    }
    return Op("POST", "/api/messages/location", _one(SentMessage.from_json), json=body)


def messages_send_poll(
    session_id: str,
    to: str,
    name: str,
    options: Sequence[str],
    selectable_count: int,
    quoted_message_id: str | None,
    mentions: Sequence[str] = (),
    mention_all: bool = False,
) -> Op[SentMessage]:
    fields = {"sessionId": session_id, "to": to, "name": name, "options": list(options)}
    body = mentioning({**fields, "selectableCount": selectable_count}, mentions, mention_all)
    if quoted_message_id:
        body["quoted"] = {"messageId": quoted_message_id}
    return Op("POST", "/api/messages/poll", _one(SentMessage.from_json), json=body)


def messages_poll_results(session_id: str, message_id: str) -> Op[PollResults]:
    params = {"sessionId": session_id, "messageId": message_id}
    return Op("GET", "/api/messages/poll-results", _one(PollResults.from_json), params=params)


def messages_edit(session_id: str, to: str, message_id: str, text: str) -> Op[JSON]:
    body = {"sessionId": session_id, "to": to, "messageId": message_id, "text": text}
    return Op("POST", "/api/messages/edit", _json, json=body)


def messages_react(session_id: str, to: str, message_id: str, reaction: str) -> Op[JSON]:
    body = {"sessionId": session_id, "to": to, "messageId": message_id, "reaction": reaction}
    return Op("POST", "/api/messages/reaction", _json, json=body)


def messages_delete(session_id: str, remote_jid: str, message_id: str, from_me: bool) -> Op[JSON]:
    body = {"sessionId": session_id, "remoteJid": remote_jid, "messageId": message_id, "fromMe": from_me}
    return Op("POST", "/api/messages/delete", _json, json=body)


def messages_list(session_id: str, chat: str | None, page: int, limit: int) -> Op[Page[JSON]]:
    params = {"sessionId": session_id, "chat": chat, "page": page, "limit": limit}
    return Op("GET", "/api/messages", _page(lambda item: item), params=params)


def contacts_check(session_id: str, numbers: Sequence[str]) -> Op[list[JSON]]:
    params = {"sessionId": session_id, "numbers": ",".join(numbers)}
    return Op("GET", "/api/contacts/check", lambda response: response.json()["results"], params=params)


def contacts_set_name(session_id: str, name: str) -> Op[JSON]:
    return Op("PUT", "/api/contacts/profile/name", _json, json={"sessionId": session_id, "name": name})


def contacts_set_status(session_id: str, status: str) -> Op[JSON]:
    return Op("PUT", "/api/contacts/profile/status", _json, json={"sessionId": session_id, "status": status})


def groups_create(session_id: str, subject: str, participants: Sequence[str]) -> Op[JSON]:
    body = {"sessionId": session_id, "subject": subject, "participants": list(participants)}
    return Op("POST", "/api/groups", lambda response: response.json()["group"], json=body)


def groups_list(session_id: str) -> Op[list[JSON]]:
    params = {"sessionId": session_id}
    return Op("GET", "/api/groups/list", lambda response: response.json()["groups"], params=params)


def groups_leave(session_id: str, group_jid: str) -> Op[JSON]:
    return Op("POST", "/api/groups/leave", _json, json={"sessionId": session_id, "groupJid": group_jid})


# --- webhooks (gateway) -----------------------------------------------------------------------------

# `update(rate_limit=NO_RATE_LIMIT)` removes a webhook's limit (None there means "leave it as it is").
NO_RATE_LIMIT = 0


def webhooks_create(
    session_id: str,
    url: str,
    events: Sequence[str],
    secret: str | None,
    retry_count: int | None,
    headers: dict[str, str] | None = None,
    rate_limit: int | None = None,
    retry_schedule: str | Sequence[int] | None = None,
    body_filter: dict[str, Any] | None = None,
    ordering: str | None = None,
) -> Op[Webhook]:
    body: JSON = {"sessionId": session_id, "url": url, "events": list(events)}
    if ordering is not None:
        body["ordering"] = ordering
    if body_filter is not None:
        body["filter"] = dict(body_filter)
    if retry_schedule is not None:
        body["retrySchedule"] = retry_schedule if isinstance(retry_schedule, str) else list(retry_schedule)
    if rate_limit is not None:
        body["rateLimit"] = rate_limit
    if secret is not None:
        body["secret"] = secret
    if retry_count is not None:
        body["retryCount"] = retry_count
    if headers is not None:
        body["headers"] = dict(headers)
    return Op("POST", "/gateway/webhooks", _one(Webhook.from_json), json=body)


def webhooks_list(session_id: str | None) -> Op[list[Webhook]]:
    def parse(response: httpx.Response) -> list[Webhook]:
        return [Webhook.from_json(item) for item in response.json()["data"]]

    return Op("GET", "/gateway/webhooks", parse, params={"sessionId": session_id})


def webhooks_get(webhook_id: str) -> Op[Webhook]:
    return Op("GET", f"/gateway/webhooks/{webhook_id}", _one(Webhook.from_json))


def webhooks_update(webhook_id: str, changes: JSON) -> Op[Webhook]:
    names = {
        "retry_count": "retryCount",
        "rate_limit": "rateLimit",
        "retry_schedule": "retrySchedule",
        "body_filter": "filter",
    }
    body = {names.get(k, k): v for k, v in changes.items() if v is not None}
    if body.get("rateLimit") == NO_RATE_LIMIT:
        body["rateLimit"] = None  # the gateway's "no limit"
    return Op("PATCH", f"/gateway/webhooks/{webhook_id}", _one(Webhook.from_json), json=body)


def webhooks_delete(webhook_id: str) -> Op[None]:
    return Op("DELETE", f"/gateway/webhooks/{webhook_id}", _none)


def webhooks_rotate_secret(webhook_id: str, secret: str | None, overlap_seconds: int | None) -> Op[JSON]:
    body: JSON = {}
    if secret is not None:
        body["secret"] = secret
    if overlap_seconds is not None:
        body["overlapSeconds"] = overlap_seconds
    return Op("POST", f"/gateway/webhooks/{webhook_id}/secret/rotate", _json, json=body)


def webhooks_test(webhook_id: str) -> Op[JSON]:
    return Op("POST", f"/gateway/webhooks/{webhook_id}/test", _json)


def webhooks_replay(webhook_id: str, since: str, until: str | None, only_failed: bool) -> Op[int]:
    body: JSON = {"since": since, "onlyFailed": only_failed}
    if until is not None:
        body["until"] = until
    return Op("POST", f"/gateway/webhooks/{webhook_id}/replay", lambda r: r.json()["queued"], json=body)


# --- instance (the instance key in the path, no API key) --------------------------------------------


def instance_config(instance_key: str) -> Op[JSON]:
    return Op("GET", f"/instances/{instance_key}/instance", _json, auth="none")


def instance_update(instance_key: str, fields: JSON) -> Op[JSON]:
    return Op("PUT", f"/instances/{instance_key}/instance", _json, auth="none", json=fields)


def instance_statistics(instance_key: str) -> Op[JSON]:
    path = f"/instances/{instance_key}/instance/webhook/statistics"
    return Op("GET", path, lambda response: response.json()["data"], auth="none")
