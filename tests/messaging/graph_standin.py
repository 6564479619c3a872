"""A local stand-in for Meta's Graph API: the real paths (with the version), bearer tokens checked,
answers and errors in Meta's shapes, and webhook bodies signed as Meta signs them."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.localhttp import base_url, start_server, stop_server

VERSION = "v21.0"
PHONE_NUMBER_ID = "106540352242922"
WABA_ID = "102290129340398"
PAGE_ID = "100200300400500"
IG_ID = "178414000000001"
CLOUD_TOKEN = "EAAG-cloud-token-secret"
PAGE_TOKEN = "EAAG-page-token-secret"
IG_TOKEN = "EAAG-ig-token-secret"
APP_SECRET = "app-secret-0123456789abcdef"
VERIFY_TOKEN = "verify-me-please"


def graph_error(code: int, message: str, *, subcode: int = 0, kind: str = "OAuthException") -> dict:
    return {
        "error": {
            "message": message,
            "type": kind,
            "code": code,
            "error_subcode": subcode,
            "fbtrace_id": "AbCdEfGh123",
        }
    }


@dataclass
class Call:
    method: str
    path: str
    token: str
    body: Any
    query: dict[str, list[str]]


@dataclass
class GraphStandIn:
    """Meta's side: who owns which token, what was asked, and the next errors to answer with."""

    tokens: dict[str, str] = field(
        default_factory=lambda: {CLOUD_TOKEN: "cloud", PAGE_TOKEN: "page", IG_TOKEN: "instagram"}
    )
    calls: list[Call] = field(default_factory=list)
    # (status, body, headers) answered to the next send calls, one each
    failures: list[tuple[int, dict, dict]] = field(default_factory=list)
    templates: list[dict] = field(default_factory=list)
    subscribed_fields: list[str] = field(default_factory=lambda: ["messages"])
    refuse_profiles: bool = False
    # Seconds every answer takes once the call is recorded (a slow Graph API).
    delay_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    serial: itertools.count = field(default_factory=lambda: itertools.count(1))
    server: Any = None

    @property
    def url(self) -> str:
        return base_url(self.server)

    def start(self) -> GraphStandIn:
        self.server = start_server(_handler(self))
        return self

    def stop(self) -> None:
        stop_server(self.server)

    def fail_next(self, status: int, code: int, message: str, *, subcode: int = 0, headers=None) -> None:
        self.failures.append((status, graph_error(code, message, subcode=subcode), headers or {}))

    def sends(self) -> list[Call]:
        return [c for c in self.calls if c.method == "POST" and c.path.endswith("/messages")]

    # --- answers ---------------------------------------------------------------------------------

    def answer(self, method: str, path: str, token: str, body: Any, query: dict) -> tuple[int, dict, dict]:
        with self.lock:
            self.calls.append(Call(method, path, token, body, query))
            if not path.startswith(f"/{VERSION}/"):
                return 400, graph_error(100, f"Unknown version in {path}", kind="GraphMethodException"), {}
            owner = self.tokens.get(token)
            if owner is None:
                return (
                    401,
                    graph_error(190, "Error validating access token: Session has expired.", subcode=463),
                    {},
                )
            parts = path.split("/")[2:]
            if method == "POST" and parts[-1] == "messages" and self.failures:
                return self.failures.pop(0)
            return self._route(method, parts, owner, body, query)

    def _route(self, method: str, parts: list[str], owner: str, body: Any, query: dict):
        if method == "GET" and parts == [PHONE_NUMBER_ID] and owner == "cloud":
            return (
                200,
                {
                    "id": PHONE_NUMBER_ID,
                    "display_phone_number": "+55 11 4000-0001",
                    "verified_name": "Acme Support",
                    "quality_rating": "GREEN",
                },
                {},
            )
        if method == "GET" and parts == ["me"]:
            if owner == "page":
                return 200, {"id": PAGE_ID, "name": "Acme Page"}, {}
            if owner == "instagram":
                return 200, {"id": IG_ID, "name": "acme.ig"}, {}
        if method == "POST" and len(parts) == 2 and parts[1] == "messages":
            return self._send(parts[0], owner, body or {})
        if method in ("POST", "DELETE") and parts == [PHONE_NUMBER_ID, "block_users"] and owner == "cloud":
            return self._block(method, body or {})
        if method == "GET" and parts == [WABA_ID, "message_templates"] and owner == "cloud":
            return 200, {"data": self.templates, "paging": {"cursors": {"before": "a", "after": "b"}}}, {}
        if len(parts) == 2 and parts[1] == "subscribed_apps" and owner in ("page", "instagram"):
            if method == "GET":
                return (
                    200,
                    {"data": [{"id": "555", "name": "Ponte", "subscribed_fields": self.subscribed_fields}]},
                    {},
                )
            fields = query.get("subscribed_fields", [""])[0].split(",")
            self.subscribed_fields = sorted(set(self.subscribed_fields) | {f for f in fields if f})
            return 200, {"success": True}, {}
        if method == "GET" and len(parts) == 1 and owner in ("page", "instagram"):
            if self.refuse_profiles:
                return 400, graph_error(10, "Permission denied for user profile", kind="OAuthException"), {}
            return (
                200,
                {"id": parts[0], "name": "Maria Customer", "profile_pic": "https://example.invalid/p.jpg"},
                {},
            )
        return (
            400,
            graph_error(100, f"Unsupported {method} request.", subcode=33, kind="GraphMethodException"),
            {},
        )

    def _block(self, method: str, body: dict):
        """Block Users API: numbers ending in 0009 never wrote in the last 24 hours (refused per user)."""
        users = [u.get("user", "") for u in body.get("block_users", [])]
        done = [{"input": u, "wa_id": u} for u in users if not u.endswith("0009")]
        failed = [
            {"input": u, "errors": [{"code": 139100, "message": "Failed to block/unblock users"}]}
            for u in users
            if u.endswith("0009")
        ]
        key = "added_users" if method == "POST" else "removed_users"
        return 200, {"messaging_product": "whatsapp", "block_users": {key: done, "failed_users": failed}}, {}

    def _send(self, sender: str, owner: str, body: dict):
        if owner == "cloud":
            if sender != PHONE_NUMBER_ID or body.get("messaging_product") != "whatsapp":
                return 400, graph_error(100, "Invalid parameter", kind="OAuthException"), {}
            if body.get("status") == "read":
                return 200, {"success": True}, {}
            number = body.get("to", "")
            return (
                200,
                {
                    "messaging_product": "whatsapp",
                    "contacts": [{"input": number, "wa_id": number}],
                    "messages": [{"id": f"wamid.HBgM{next(self.serial):06d}"}],
                },
                {},
            )
        if "sender_action" in body:
            return 200, {"recipient_id": body["recipient"]["id"]}, {}
        return 200, {"recipient_id": body["recipient"]["id"], "message_id": f"m_{next(self.serial):06d}"}, {}


def _handler(standin: GraphStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            auth = self.headers.get("Authorization", "")
            token = auth[len("Bearer ") :] if auth.startswith("Bearer ") else ""
            status, reply, headers = standin.answer(method, parts.path, token, body, parse_qs(parts.query))
            time.sleep(standin.delay_seconds)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

    return Handler


def sign(raw: bytes, secret: str = APP_SECRET) -> str:
    """`X-Hub-Signature-256` as Meta computes it."""
    return "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


def cloud_credentials(**overrides: str) -> dict[str, str]:
    return {
        "phoneNumberId": PHONE_NUMBER_ID,
        "businessAccountId": WABA_ID,
        "accessToken": CLOUD_TOKEN,
        "appSecret": APP_SECRET,
        "verifyToken": VERIFY_TOKEN,
        **overrides,
    }


def page_credentials(provider: str = "messenger", **overrides: str) -> dict[str, str]:
    if provider == "instagram":
        base = {"pageId": IG_ID, "pageAccessToken": IG_TOKEN}
    else:
        base = {"pageId": PAGE_ID, "pageAccessToken": PAGE_TOKEN}
    return {**base, "appSecret": APP_SECRET, "verifyToken": VERIFY_TOKEN, **overrides}


def credentials_for(provider: str) -> dict[str, str]:
    return cloud_credentials() if provider == "whatsapp_cloud" else page_credentials(provider)
