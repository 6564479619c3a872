"""The demo's own webhook receiver, so the first demo delivery succeeds without leaving the machine.

`make run` points the demo webhook at `POST /demo/webhook` on Ponte itself (allowing 127.0.0.1/32 through
PONTE_WEBHOOK_ALLOW_NETWORKS for that run only); `GET /demo/` shows what arrived and whether each
signature checks out. Each is checked with the secret of the webhook the delivery came from, which Ponte
finds from the `webhook-id` header (a delivery's dispatch id): any webhook pointed here, the demo's or a
customer's, is checked with its own secret. A post Ponte did not send is checked only against the demo
secret, and shown "not checked" when that fails. What arrived is kept in a small JSON-lines file under
PONTE_VAR_DIR, so every web process sees it, with no table of its own. Off (404) unless
PONTE_DEMO_RECEIVER is on (the default follows DEBUG). What arrived is parsed as signed inbound JSON
(core.signed_json: NUL removed, numbers clamped, nesting bounded), so an odd body is shown, never a 500.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from core.signatures import signature_matches
from core.signed_json import signed_json_load
from core.timefmt import local_time_text
from webhooks.models import Delivery
from webhooks.signing import hex_signature

KEPT = 50
_BODY_LIMIT = 64 * 1024
_lock = threading.Lock()


DEMO_SECRET = "demo-webhook-secret"  # noqa: S105 (a published demo value, not a credential)


def demo_secret() -> str:
    return DEMO_SECRET


def demo_receiver_url() -> str:
    """Where the demo webhook posts: this Ponte on the loopback address, at the port it serves."""
    return f"http://127.0.0.1:{settings.PONTE_PORT}/demo/webhook"


def _store() -> Path:
    return Path(settings.VAR_DIR) / "demo-webhook.jsonl"


def received_add(record: dict[str, Any]) -> None:
    store = _store()
    with _lock:
        lines = store.read_text().splitlines() if store.exists() else []
        lines = [*lines[-(KEPT - 1) :], json.dumps(record)]
        store.write_text("\n".join(lines) + "\n")


def received_list() -> list[dict[str, Any]]:
    """What arrived, newest first."""
    store = _store()
    lines = store.read_text().splitlines() if store.exists() else []
    return [json.loads(line) for line in reversed(lines) if line.strip()]


def _require_enabled() -> None:
    if not settings.PONTE_DEMO_RECEIVER:
        raise Http404("The demo receiver is off (PONTE_DEMO_RECEIVER).")


def signature_check(*, dispatch_id: str, signature: str, body: bytes) -> tuple[str, str]:
    """(verdict, whose secret was used): verdict is valid, invalid, unsigned or not checked."""
    if not signature:
        return "unsigned", ""
    delivery = Delivery.objects.filter(dispatch_id=dispatch_id).select_related("webhook").first()
    hook = delivery.webhook if delivery is not None else None
    if hook is not None and hook.secret:
        ok = signature_matches(signature, hex_signature(secret=hook.secret, body=body))
        return ("valid" if ok else "invalid"), f"webhook {hook.id}"
    if signature_matches(signature, hex_signature(secret=demo_secret(), body=body)):
        return "valid", "the demo secret"
    # Not a delivery of this Ponte (or its webhook is gone): its secret is unknown here, so a mismatch
    # with the demo secret proves nothing.
    return "not checked", ""


@csrf_exempt
@require_POST
def receive(request: HttpRequest) -> HttpResponse:
    _require_enabled()
    body = request.body[:_BODY_LIMIT]
    dispatch_id = request.headers.get("webhook-id", "")
    verdict, checked_with = signature_check(
        dispatch_id=dispatch_id, signature=request.headers.get("x-webhook-signature", ""), body=body
    )
    try:
        payload: Any = signed_json_load(body, source="demo receiver")
    except ValueError:
        payload = body.decode(errors="replace").replace("\x00", "")
    received_add(
        {
            "at": timezone.now().isoformat(timespec="seconds"),
            "webhook_id": dispatch_id,
            "event": payload.get("event", "") if isinstance(payload, dict) else "",
            "signature": verdict,
            "checked_with": checked_with,
            "payload": payload,
        }
    )
    return JsonResponse({"received": True})


@require_GET
def page(request: HttpRequest) -> HttpResponse:
    _require_enabled()
    received = received_list()
    for record in received:
        record["pretty"] = json.dumps(record["payload"], indent=2, ensure_ascii=False)
        record["at"] = local_time_text(datetime.fromisoformat(record["at"]))
    context = {"received": received, "url": demo_receiver_url(), "kept": KEPT, "demo_secret": demo_secret()}
    return render(request, "demo/received.html", context)


urlpatterns = [
    path("", page, name="demo-received"),
    path("webhook", receive, name="demo-webhook"),
]
