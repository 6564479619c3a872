"""A local stand-in for Chatwoot: its real routes (`/api/v1/...` with the `api_access_token` header,
the client API under `/public/api/v1/inboxes/...`), its answer shapes, multipart attachments read as
Chatwoot reads them, attachments served behind a redirect as `data_url` does, and the webhook payloads
Chatwoot POSTs (`message_created`, `conversation_typing_on|off`) to the inbox's `webhook_url`."""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from tests.localhttp import base_url, start_server, stop_server

TOKEN = "cw-admin-token-0123456789"
INBOX_IDENTIFIER = "Kx9ZrQ2mUu7bV1sWgT3pLnA4"
ACCOUNT_ID = 7  # the second account of the token: the search must look past the first
INBOX_ID = 31
BIG_FILE_BYTES = 42_000_000


@dataclass
class Call:
    method: str
    path: str
    body: Any
    files: list[dict[str, Any]]
    headers: dict[str, str]


@dataclass
class ChatwootStandIn:
    accounts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    contacts: dict[int, dict[str, Any]] = field(default_factory=dict)
    conversations: dict[int, dict[str, Any]] = field(default_factory=dict)
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    canned: dict[int, dict[str, Any]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    typing: list[tuple[int, str]] = field(default_factory=list)
    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(100))
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    server: Any = None
    # (status, body) answered to the next message posts, one each; seconds the next message post hangs
    message_failures: list[tuple[int, dict]] = field(default_factory=list)
    hang_next_message: float = 0.0
    # Chatwoot 4.13+: the inbox's webhook secret, returned when its webhook is set; "" as older versions
    webhook_secret: str = ""

    def __post_init__(self) -> None:
        if not self.accounts:
            self.accounts = {
                3: [{"id": 11, "name": "Other", "channel_type": "Channel::Api", "inbox_identifier": "nope"}],
                ACCOUNT_ID: [
                    {
                        "id": INBOX_ID,
                        "name": "WhatsApp",
                        "channel_type": "Channel::Api",
                        "inbox_identifier": INBOX_IDENTIFIER,
                        "webhook_url": "",
                    }
                ],
            }

    # --- Serving ----------------------------------------------------------------------------------

    def start(self) -> ChatwootStandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
                raw = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                status, body, headers = standin.dispatch(
                    self.command, parts.path, parse_qs(parts.query), raw, dict(self.headers)
                )
                if isinstance(body, bytes):
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self._answer(status, body, headers)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle

        self.server = start_server(Handler)
        self.url = base_url(self.server)
        return self

    def stop(self) -> None:
        if self.server is not None:
            stop_server(self.server)

    # --- Requests ---------------------------------------------------------------------------------

    @staticmethod
    def _parse(raw: bytes, headers: dict[str, str]) -> tuple[Any, list[dict[str, Any]]]:
        kind = headers.get("Content-Type", "")
        if kind.startswith("multipart/form-data"):
            message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {kind}\r\n\r\n".encode() + raw)
            fields: dict[str, Any] = {}
            files = []
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                payload = part.get_payload(decode=True) or b""
                if part.get_filename():
                    files.append(
                        {
                            "field": name,
                            "filename": part.get_filename(),
                            "type": part.get_content_type(),
                            "content": payload,
                        }
                    )
                else:
                    fields[name] = payload.decode()
            if isinstance(fields.get("content_attributes"), str):
                fields["content_attributes"] = json.loads(fields["content_attributes"])
            return fields, files
        return (json.loads(raw) if raw else None), []

    def dispatch(
        self, method: str, path: str, query: dict[str, list[str]], raw: bytes, headers: dict[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        body, files = self._parse(raw, headers)
        if method == "POST" and path.endswith("/messages") and "/conversations/" in path:
            with self.lock:
                hang, self.hang_next_message = self.hang_next_message, 0.0
                failure = self.message_failures.pop(0) if self.message_failures else None
            if hang:
                time.sleep(hang)
            if failure is not None:
                self.calls.append(Call(method, path, body, files, headers))
                return failure[0], failure[1], {}
        with self.lock:
            self.calls.append(Call(method, path, body, files, headers))
        segments = path.strip("/").split("/")
        if path.startswith("/rails/active_storage/"):
            name = segments[-1]
            return 301, b"", {"Location": f"/files/{name}", "Content-Length": "0"}
        if path.startswith("/files/"):
            name = segments[-1]
            if name == "big.bin":
                return (
                    200,
                    b"x" * 1024,
                    {"Content-Length": str(BIG_FILE_BYTES), "Content-Type": "application/octet-stream"},
                )
            content, kind = self.files.get(name, (b"", ""))
            if not content:
                return 404, {"error": "not found"}, {}
            return 200, content, {"Content-Type": kind, "Content-Length": str(len(content))}
        if path.startswith("/public/api/v1/inboxes/"):
            return self._public(method, segments)
        if headers.get("api_access_token") != TOKEN and headers.get("Api-Access-Token") != TOKEN:
            return 401, {"error": "Invalid Access Token"}, {}
        if path == "/api/v1/profile":
            accounts = [{"id": a, "name": f"Account {a}", "role": "administrator"} for a in self.accounts]
            return 200, {"id": 1, "name": "Admin", "email": "admin@example.com", "accounts": accounts}, {}
        account = int(segments[3])
        rest = segments[4:]
        with self.lock:
            return self._account(method, account, rest, query, body or {}, files)

    def _public(self, method: str, segments: list[str]) -> tuple[int, Any, dict[str, str]]:
        # /public/api/v1/inboxes/{identifier}/contacts/{source_id}/conversations/{cid}/{action}
        identifier, source_id, cid, action = segments[4], segments[6], int(segments[8]), segments[9]
        if identifier != INBOX_IDENTIFIER:
            return 404, {"error": "Resource could not be found"}, {}
        conversation = self.conversations.get(cid)
        if conversation is None or conversation["contact_inbox"]["source_id"] != source_id:
            return 404, {"error": "Resource could not be found"}, {}
        if action == "toggle_typing":
            with self.lock:
                self.typing.append((cid, self.calls[-1].body["typing_status"]))
            return 200, None, {}
        if action == "update_last_seen":
            for message in self.messages.values():
                if message["conversation_id"] == cid and message["message_type"] == 1:
                    message["status"] = "read"
            return 200, None, {}
        return 404, {"error": "Resource could not be found"}, {}

    def _account(
        self, method: str, account: int, rest: list[str], query: dict, body: Any, files: list[dict]
    ) -> tuple[int, Any, dict[str, str]]:
        if account not in self.accounts:
            return 401, {"error": "You are not authorized to access this account"}, {}
        head = rest[0]
        if head == "inboxes" and method == "GET":
            return 200, {"payload": self.accounts[account]}, {}
        if head == "inboxes" and method == "PATCH":
            inbox = next(i for i in self.accounts[account] if i["id"] == int(rest[1]))
            inbox["webhook_url"] = body.get("channel", {}).get("webhook_url", inbox.get("webhook_url"))
            return 200, {**inbox, **({"secret": self.webhook_secret} if self.webhook_secret else {})}, {}
        if head == "contacts":
            return self._contacts(method, account, rest, query, body)
        if head == "conversations":
            return self._conversations(method, account, rest, body, files)
        if head == "canned_responses":
            if method == "GET":
                return 200, [c for c in self.canned.values() if c["account_id"] == account], {}
            if method == "POST":
                fields = body["canned_response"]
                if any(c["short_code"] == fields["short_code"] for c in self.canned.values()):
                    return (
                        422,
                        {"message": "Short code has already been taken", "attributes": ["short_code"]},
                        {},
                    )
                cid = next(self.ids)
                self.canned[cid] = {"id": cid, "account_id": account, **fields}
                return 200, self.canned[cid], {}
            if method == "PATCH":
                self.canned[int(rest[1])].update(body["canned_response"])
                return 200, self.canned[int(rest[1])], {}
        return 404, {"error": "Resource could not be found"}, {}

    def _contacts(self, method: str, account: int, rest: list[str], query: dict, body: Any):
        if len(rest) == 2 and rest[1] == "search":
            q = (query.get("q") or [""])[0]
            found = [
                c
                for c in self.contacts.values()
                if q and (q in (c.get("identifier") or "") or q in (c.get("phone_number") or ""))
            ]
            return 200, {"meta": {"count": len(found), "current_page": 1}, "payload": found}, {}
        if len(rest) == 1 and method == "POST":
            for key in ("identifier", "phone_number"):
                if body.get(key) and any(c.get(key) == body[key] for c in self.contacts.values()):
                    return 422, {"message": f"{key.title()} has already been taken", "attributes": [key]}, {}
            contact_id = next(self.ids)
            source_id = f"src-{contact_id}"
            contact = {
                "id": contact_id,
                "name": body.get("name"),
                "identifier": body.get("identifier"),
                "phone_number": body.get("phone_number"),
                "contact_inboxes": [{"inbox": {"id": body.get("inbox_id")}, "source_id": source_id}],
            }
            self.contacts[contact_id] = contact
            return (
                200,
                {
                    "payload": {
                        "contact": contact,
                        "contact_inbox": {"inbox": {"id": body.get("inbox_id")}, "source_id": source_id},
                    }
                },
                {},
            )
        if len(rest) == 3 and rest[2] == "conversations":
            mine = [c for c in self.conversations.values() if c["meta"]["sender"]["id"] == int(rest[1])]
            return 200, {"payload": mine[-20:]}, {}
        return 404, {"error": "Resource could not be found"}, {}

    def _conversations(self, method: str, account: int, rest: list[str], body: Any, files: list[dict]):
        if len(rest) == 1 and method == "POST":
            contact = self.contacts[int(body["contact_id"])]
            cid = next(self.ids)
            source_id = body.get("source_id") or contact["contact_inboxes"][0]["source_id"]
            self.conversations[cid] = {
                "id": cid,
                "account_id": account,
                "inbox_id": int(body["inbox_id"]),
                "status": body.get("status") or "open",
                "can_reply": True,
                "contact_inbox": {"source_id": source_id},
                "meta": {"sender": contact, "assignee": None},
                "messages": [],
            }
            return 200, self.conversations[cid], {}
        conversation = self.conversations.get(int(rest[1]))
        if conversation is None:
            return 404, {"error": "Resource could not be found"}, {}
        if len(rest) == 2:
            return 200, conversation, {}
        action = rest[2]
        if action == "toggle_status":
            conversation["status"] = body["status"]
            return (
                200,
                {
                    "payload": {
                        "success": True,
                        "conversation_id": conversation["id"],
                        "current_status": body["status"],
                    }
                },
                {},
            )
        if action == "messages" and len(rest) == 3 and method == "POST":
            mid = next(self.ids)
            kind = body.get("message_type", "outgoing")
            message = {
                "id": mid,
                "content": body.get("content"),
                "conversation_id": conversation["id"],
                "inbox_id": conversation["inbox_id"],
                "message_type": {"incoming": 0, "outgoing": 1}[kind],
                "private": str(body.get("private")).lower() == "true",
                "source_id": body.get("source_id"),
                "content_attributes": body.get("content_attributes") or {},
                "status": "sent",
                "created_at": int(time.time()),
                "attachments": [
                    {
                        "id": next(self.ids),
                        "file_type": f["type"].split("/")[0],
                        "file_name": f["filename"],
                        "content_type": f["type"],
                        "file_size": len(f["content"]),
                        "content": f["content"],
                    }
                    for f in files
                ],
            }
            self.messages[mid] = message
            return 200, {k: v for k, v in message.items() if k != "attachments"}, {}
        if action == "messages" and len(rest) == 4 and method == "DELETE":
            message = self.messages.get(int(rest[3]))
            if message is None:
                return 404, {"error": "Resource could not be found"}, {}
            message["content"] = "This message was deleted"
            message["content_attributes"]["deleted"] = True
            return 200, message, {}
        if action == "messages" and len(rest) == 4 and method == "PATCH":
            message = self.messages.get(int(rest[3]))
            if message is None:
                return 404, {"error": "Resource could not be found"}, {}
            message["status"] = body["status"]
            if body.get("external_error"):
                message["content_attributes"]["external_error"] = body["external_error"]
            return 200, message, {}
        return 404, {"error": "Resource could not be found"}, {}

    # --- What Chatwoot sends ----------------------------------------------------------------------

    def inbox(self) -> dict[str, Any]:
        return self.accounts[ACCOUNT_ID][0]

    def agent_message(
        self,
        conversation_id: int,
        content: str,
        *,
        private: bool = False,
        in_reply_to: int | None = None,
        attachment: tuple[str, bytes, str] | None = None,
        agent: str = "Ana Souza",
    ) -> dict[str, Any]:
        """An agent writes in the panel: stored as Chatwoot stores it; the `message_created` payload."""
        conversation = self.conversations[conversation_id]
        mid = next(self.ids)
        attachments = []
        if attachment is not None:
            name, content_bytes, kind = attachment
            self.files[name] = (content_bytes, kind)
            attachments.append(
                {
                    "id": next(self.ids),
                    "file_type": kind.split("/")[0]
                    if kind.split("/")[0] in ("image", "audio", "video")
                    else "file",
                    "data_url": f"{self.url}/rails/active_storage/blobs/redirect/eyJfcmFpbHMi/{name}",
                    "file_size": len(content_bytes),
                }
            )
        attributes = {"in_reply_to": in_reply_to} if in_reply_to else {}
        self.messages[mid] = {
            "id": mid,
            "content": content,
            "conversation_id": conversation_id,
            "message_type": 1,
            "private": private,
            "source_id": None,
            "content_attributes": attributes,
            "status": "sent",
            "attachments": attachments,
        }
        return {
            "event": "message_created",
            "id": mid,
            "content": content,
            "message_type": "outgoing",
            "private": private,
            "source_id": None,
            "content_type": "text",
            "content_attributes": attributes,
            "created_at": int(time.time()),
            "sender": {"id": 3, "name": agent, "available_name": agent, "type": "user"},
            "account": {"id": ACCOUNT_ID, "name": "Account 7"},
            "inbox": {"id": conversation["inbox_id"], "name": "WhatsApp"},
            "attachments": attachments,
            "conversation": {
                "id": conversation_id,
                "inbox_id": conversation["inbox_id"],
                "status": conversation["status"],
                "contact_inbox": conversation["contact_inbox"],
                "meta": {
                    "sender": {
                        k: conversation["meta"]["sender"].get(k)
                        for k in ("id", "name", "phone_number", "identifier")
                    }
                },
                "messages": [{"id": mid, "message_type": 1, "source_id": None, "attachments": []}],
            },
        }

    def agent_deletes(self, message_id: int) -> dict[str, Any]:
        """An agent deletes a message in the panel: Chatwoot's `message_updated` payload."""
        message = self.messages[message_id]
        message["content_attributes"]["deleted"] = True
        conversation = self.conversations[message["conversation_id"]]
        return {
            "event": "message_updated",
            "id": message_id,
            "content": "This message was deleted",
            "message_type": "outgoing",
            "private": False,
            "content_attributes": {"deleted": True},
            "conversation": {"id": conversation["id"], "inbox_id": conversation["inbox_id"]},
        }

    def agent_typing(
        self, conversation_id: int, on: bool, *, private: bool = False, by_contact: bool = False
    ) -> dict:
        conversation = self.conversations[conversation_id]
        user = {"id": 9, "name": "Customer"} if by_contact else {"id": 3, "name": "Ana Souza", "type": "user"}
        return {
            "event": f"conversation_typing_{'on' if on else 'off'}",
            "user": user,
            "is_private": private,
            "conversation": {
                "id": conversation_id,
                "inbox_id": conversation["inbox_id"],
                "meta": {"sender": conversation["meta"]["sender"]},
            },
        }

    def deliver(self, payload: dict[str, Any]) -> requests.Response:
        """POST a webhook payload to the inbox's webhook_url, as Chatwoot does (one attempt, 5 s)."""
        return requests.post(self.inbox()["webhook_url"], json=payload, timeout=5)
