"""Local stand-ins for the services a bot calls, each speaking its real format: an n8n-style webhook
(`POST /hook`, answering `{"replies": [...]}`), an OpenAI-compatible Chat Completions endpoint
(`POST /v1/chat/completions`) and Typebot's public chat API (`startChat`, `continueChat`)."""

from __future__ import annotations

import base64
import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.localhttp import base_url, start_server, stop_server

# A one-pixel PNG, served at any GET (an image bubble's URL).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass
class BotStandIn:
    calls: list[Call] = field(default_factory=list)
    # The webhook's next answers, one each (status, body); then `hook_answer` every time.
    hook_queue: list[tuple[int, Any]] = field(default_factory=list)
    hook_answer: tuple[int, Any] = (200, {"replies": [{"text": "Recebido!"}]})
    # The model's answer text; its status when failing on purpose.
    model_text: str = "Olá! Como posso ajudar?"
    model_status: int = 200
    typebot_sessions: dict[str, int] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    server: Any = None

    def start(self) -> BotStandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                with standin.lock:
                    standin.calls.append(Call(self.path, dict(self.headers), body, raw))
                status, answer = standin.answer(self.path, body)
                data = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = start_server(Handler)
        self.url = base_url(self.server)
        return self

    def stop(self) -> None:
        stop_server(self.server)

    def calls_to(self, prefix: str) -> list[Call]:
        return [call for call in self.calls if call.path.startswith(prefix)]

    def answer(self, path: str, body: Any) -> tuple[int, Any]:
        if path == "/hook":
            with self.lock:
                return self.hook_queue.pop(0) if self.hook_queue else self.hook_answer
        if path == "/v1/chat/completions":
            if self.model_status != 200:
                return self.model_status, {"error": {"message": "model overloaded", "type": "server_error"}}
            return 200, {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.model_text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        return self.typebot(path, body)

    def typebot(self, path: str, body: Any) -> tuple[int, Any]:
        """A two-step flow: a greeting with a choice, then an answer to the choice, and the end."""
        parts = path.strip("/").split("/")
        if parts[:3] == ["api", "v1", "typebots"] and parts[-1] == "startChat":
            session_id = f"tb-session-{next(self.ids)}"
            self.typebot_sessions[session_id] = 1
            return 200, {
                "sessionId": session_id,
                "typebot": {"id": parts[3], "theme": {}, "settings": {}},
                "messages": [
                    {
                        "id": "m1",
                        "type": "text",
                        "content": {"type": "markdown", "markdown": "Olá! Sou o assistente."},
                    },
                    {
                        "id": "m2",
                        "type": "text",
                        "content": {"type": "markdown", "markdown": "Sobre o que quer falar?"},
                    },
                ],
                "input": {
                    "id": "choice1",
                    "type": "choice input",
                    "items": [
                        {"id": "it-plans", "content": "Planos"},
                        {"id": "it-help", "content": "Suporte"},
                    ],
                },
            }
        if parts[:3] == ["api", "v1", "sessions"] and parts[-1] == "continueChat":
            session_id = parts[3]
            if session_id not in self.typebot_sessions:
                return 404, {"message": "Session not found.", "code": "NOT_FOUND"}
            del self.typebot_sessions[session_id]
            chosen = (body or {}).get("message", {}).get("text", "")
            return 200, {
                "messages": [
                    {
                        "id": "m3",
                        "type": "text",
                        "content": {
                            "type": "richText",
                            "richText": [{"type": "p", "children": [{"text": f"Você escolheu {chosen}."}]}],
                        },
                    },
                    {"id": "m4", "type": "image", "content": {"url": f"{self.url}/img.png"}},
                ],
            }
        return 404, {"message": "not found"}
