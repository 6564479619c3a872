"""`/channels/<provider>/<session_id>/webhook`: Meta's verification challenge and its signed POSTs.

Plain status codes (Meta reads nothing else): GET answers the challenge as text or 403; POST checks
`X-Hub-Signature-256` on the raw body before anything is parsed (401, nothing recorded), then decodes
the JSON (400 when it is not), stores the body's items as jobs (messaging.channels.queue: a worker
cleans, parses and records them, in turns per session) and answers 200 at once, whatever its size;
more than MAX_ITEMS_PER_BODY items is 413, nothing stored. An unknown session, or one of another
provider, is 404. What Meta signed is cleaned rather than refused (core.signed_json: NUL, numbers out
of range), so one odd event never costs the others of its batch (Meta retries a whole body on any 5xx).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from uuid import UUID

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from core.signatures import signature_matches
from core.signed_json import signed_json_decode
from messaging.channels import OFFICIAL_PROVIDERS
from messaging.channels.models import ChannelAccount
from messaging.channels.queue import TooManyItems, items_store

logger = logging.getLogger(__name__)


def _account(provider: str, session_id: str) -> ChannelAccount | None:
    if provider not in OFFICIAL_PROVIDERS:
        return None
    try:
        key = UUID(session_id)
    except ValueError:
        return None
    account = ChannelAccount.objects.select_related("session").filter(session_id=key).first()
    if account is None or account.session.provider != provider or not account.credentials:
        return None
    return account


def signature_valid(raw: bytes, header: str, secret: str) -> bool:
    """`sha256=` + hex HMAC-SHA256 of the raw body under the app secret, compared as bytes in constant
    time (a malformed header, non-ASCII included, is a mismatch: 401)."""
    if not secret or not header.startswith("sha256="):
        return False
    expected = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    return signature_matches(header[len("sha256=") :].strip().lower(), expected)


def _challenge(request: HttpRequest, account: ChannelAccount) -> HttpResponse:
    mode = request.GET.get("hub.mode", "")
    token = request.GET.get("hub.verify_token", "")
    expected = account.credential("verifyToken")
    if mode == "subscribe" and signature_matches(token, expected):
        return HttpResponse(request.GET.get("hub.challenge", ""), content_type="text/plain; charset=utf-8")
    return HttpResponse("Forbidden", status=403, content_type="text/plain; charset=utf-8")


def _notification(request: HttpRequest, account: ChannelAccount) -> HttpResponse:
    raw = request.body
    header = request.headers.get("X-Hub-Signature-256", "")
    if not signature_valid(raw, header, account.credential("appSecret")):
        logger.warning("Channel webhook for session %s with a bad signature refused", account.session_id)
        return HttpResponse("Invalid signature", status=401, content_type="text/plain; charset=utf-8")
    try:
        body = signed_json_decode(raw)  # decoded only: the worker cleans and parses each stored part
    except ValueError:
        return HttpResponse("Malformed JSON", status=400, content_type="text/plain; charset=utf-8")
    try:
        items_store(session=account.session, body=body)
    except TooManyItems as exc:
        logger.warning("Channel webhook for session %s refused: %s", account.session_id, exc)
        return HttpResponse(f"Too many items: {exc}", status=413, content_type="text/plain; charset=utf-8")
    return HttpResponse("OK", content_type="text/plain; charset=utf-8")


@csrf_exempt
def channel_webhook(request: HttpRequest, provider: str, session_id: str) -> HttpResponse:
    account = _account(provider, session_id)
    if account is None:
        return HttpResponse("Not found", status=404, content_type="text/plain; charset=utf-8")
    if request.method == "GET":
        return _challenge(request, account)
    if request.method == "POST":
        return _notification(request, account)
    return HttpResponse("Method not allowed", status=405, headers={"Allow": "GET, POST"})
