"""A small Chatwoot API client over net.transport (its SSRF checks apply to every connection).

Auth is the `api_access_token` header (an admin user's token: bot tokens may not search inboxes or
contacts). Client-API calls (`/public/api/v1/inboxes/...`) carry no token.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import requests

from net.transport import UnsafeTarget, http_session, validate_target_url

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 15.0
MAX_REDIRECTS = 3


class ChatwootError(Exception):
    """A call that failed: `status` None for a network failure. `final` when repeating cannot help."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def final(self) -> bool:
        return self.status is not None and 400 <= self.status < 500 and self.status not in (408, 429)


@dataclass(frozen=True)
class Upload:
    """One attachment of a multipart message: its real file name, type and bytes."""

    file_name: str
    mime_type: str
    content: bytes


def _error_text(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict):
        for key in ("error", "message", "errors"):
            if body.get(key):
                return str(body[key])[:300]
    return str(body)[:300]


class ChatwootClient:
    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token

    def _request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        data: dict[str, str] | None = None,
        files: list[tuple[str, tuple[str, bytes, str]]] | None = None,
        params: dict[str, Any] | None = None,
        auth: bool = True,
    ) -> Any:
        url = f"{self.base_url}{path}"
        headers = {"Accept": "application/json"}
        if auth:
            headers["api_access_token"] = self.token
        try:
            response = http_session().request(
                method,
                url,
                json=json_body,
                data=data,
                files=files,
                params=params,
                headers=headers,
                timeout=TIMEOUT_SECONDS,
                allow_redirects=False,
            )
        except UnsafeTarget:
            raise
        except requests.RequestException as exc:
            kind = "timed out" if isinstance(exc, requests.Timeout) else "could not be reached"
            raise ChatwootError(f"Chatwoot {kind} ({method} {path})") from None
        if response.status_code >= 400:
            raise ChatwootError(
                f"Chatwoot answered {response.status_code} to {method} {path}: {_error_text(response)}",
                status=response.status_code,
            )
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    # --- Accounts and inboxes ---------------------------------------------------------------------

    def profile(self) -> dict[str, Any]:
        return self._request("GET", "/api/v1/profile") or {}

    def inboxes(self, account_id: int) -> list[dict[str, Any]]:
        body = self._request("GET", f"/api/v1/accounts/{account_id}/inboxes") or {}
        return list(body.get("payload") or [])

    def inbox_update(self, account_id: int, inbox_id: int, webhook_url: str) -> dict[str, Any]:
        """Point the inbox's webhook at `webhook_url`; the inbox as answered (with its webhook `secret`
        on Chatwoot 4.13+)."""
        return (
            self._request(
                "PATCH",
                f"/api/v1/accounts/{account_id}/inboxes/{inbox_id}",
                json_body={"channel": {"webhook_url": webhook_url}},
            )
            or {}
        )

    # --- Contacts and conversations ---------------------------------------------------------------

    def contacts_search(self, account_id: int, query: str) -> list[dict[str, Any]]:
        body = self._request("GET", f"/api/v1/accounts/{account_id}/contacts/search", params={"q": query})
        return list((body or {}).get("payload") or [])

    def contact_create(self, account_id: int, fields: dict[str, Any]) -> dict[str, Any]:
        body = self._request("POST", f"/api/v1/accounts/{account_id}/contacts", json_body=fields) or {}
        return body.get("payload") or {}

    def contact_conversations(self, account_id: int, contact_id: int) -> list[dict[str, Any]]:
        body = self._request("GET", f"/api/v1/accounts/{account_id}/contacts/{contact_id}/conversations")
        return list((body or {}).get("payload") or [])

    def conversation(self, account_id: int, conversation_id: int) -> dict[str, Any]:
        return self._request("GET", f"/api/v1/accounts/{account_id}/conversations/{conversation_id}") or {}

    def conversation_create(self, account_id: int, fields: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", f"/api/v1/accounts/{account_id}/conversations", json_body=fields) or {}

    def conversation_status(self, account_id: int, conversation_id: int, status: str) -> None:
        self._request(
            "POST",
            f"/api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_status",
            json_body={"status": status},
        )

    # --- Messages ---------------------------------------------------------------------------------

    def message_create(
        self, account_id: int, conversation_id: int, fields: dict[str, Any], uploads: list[Upload] = ()
    ) -> dict[str, Any]:
        path = f"/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages"
        if not uploads:
            return self._request("POST", path, json_body=fields) or {}
        data = {
            key: json.dumps(value)
            if isinstance(value, (dict, list))
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
            for key, value in fields.items()
        }
        files = [("attachments[]", (u.file_name, u.content, u.mime_type)) for u in uploads]
        return self._request("POST", path, data=data, files=files) or {}

    def message_status(
        self, account_id: int, conversation_id: int, message_id: int, status: str, error: str = ""
    ) -> None:
        body: dict[str, Any] = {"status": status}
        if error:
            body["external_error"] = error[:300]
        self._request(
            "PATCH",
            f"/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}",
            json_body=body,
        )

    def message_delete(self, account_id: int, conversation_id: int, message_id: int) -> None:
        self._request(
            "DELETE", f"/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}"
        )

    def private_note(self, account_id: int, conversation_id: int, text: str) -> None:
        self.message_create(
            account_id, conversation_id, {"content": text, "message_type": "outgoing", "private": True}
        )

    def contact_typing(self, inbox_identifier: str, source_id: str, conversation_id: int, on: bool) -> None:
        """The customer typing, shown as the contact (client API: no token)."""
        self._request(
            "POST",
            f"/public/api/v1/inboxes/{inbox_identifier}/contacts/{source_id}"
            f"/conversations/{conversation_id}/toggle_typing",
            json_body={"typing_status": "on" if on else "off"},
            auth=False,
        )

    def last_seen(self, inbox_identifier: str, source_id: str, conversation_id: int) -> None:
        """The customer read our messages (Chatwoot marks the conversation's outgoing messages read)."""
        self._request(
            "POST",
            f"/public/api/v1/inboxes/{inbox_identifier}/contacts/{source_id}"
            f"/conversations/{conversation_id}/update_last_seen",
            auth=False,
        )

    # --- Canned responses -------------------------------------------------------------------------

    def canned_responses(self, account_id: int) -> list[dict[str, Any]]:
        return list(self._request("GET", f"/api/v1/accounts/{account_id}/canned_responses") or [])

    def canned_response_create(self, account_id: int, short_code: str, content: str) -> None:
        self._request(
            "POST",
            f"/api/v1/accounts/{account_id}/canned_responses",
            json_body={"canned_response": {"short_code": short_code, "content": content}},
        )

    def canned_response_update(self, account_id: int, canned_id: int, content: str) -> None:
        self._request(
            "PATCH",
            f"/api/v1/accounts/{account_id}/canned_responses/{canned_id}",
            json_body={"canned_response": {"content": content}},
        )

    # --- Attachments ------------------------------------------------------------------------------

    def download(self, url: str, *, max_bytes: int) -> bytes:
        """An attachment's bytes (`data_url` answers with a redirect to storage: followed, each hop
        checked); ChatwootError when it is too big or cannot be fetched."""
        for _ in range(MAX_REDIRECTS + 1):
            validate_target_url(url)
            try:
                response = http_session().get(
                    url, timeout=TIMEOUT_SECONDS, allow_redirects=False, stream=True
                )
            except requests.RequestException:
                raise ChatwootError("the attachment could not be downloaded") from None
            with response:
                if response.is_redirect and response.headers.get("Location"):
                    url = requests.compat.urljoin(url, response.headers["Location"])
                    continue
                if response.status_code >= 400:
                    raise ChatwootError(
                        f"the attachment answered HTTP {response.status_code}", status=response.status_code
                    )
                declared = response.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise ChatwootError(
                        f"the attachment is larger than {max_bytes // (1024 * 1024)} MB", status=413
                    )
                content = b""
                for chunk in response.iter_content(64 * 1024):
                    content += chunk
                    if len(content) > max_bytes:
                        raise ChatwootError(
                            f"the attachment is larger than {max_bytes // (1024 * 1024)} MB", status=413
                        )
                return content
        raise ChatwootError("the attachment redirected too many times", status=400)
