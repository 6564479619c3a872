"""The TypeScript client (clients/typescript): its generated types match the OpenAPI document Django
produces now, it builds, and node's own test runner drives the built client against a live Ponte."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from drf_spectacular.generators import SchemaGenerator

from accounts.models import ApiKey
from messaging.models import Session
from tests.clients.typescript_support import PACKAGE, run
from tests.webhooks.support import Receiver
from webhooks.models import Delivery, Webhook
from webhooks.outbox import drains as outbox
from webhooks.services import emit
from webhooks.signing import delivery_headers


def test_npm_run_build_emits_javascript_and_declarations(built) -> None:
    dist = PACKAGE / "dist"
    for module in ("index", "client", "errors", "http", "webhooks", "schema"):
        assert (dist / f"{module}.js").is_file() and (dist / f"{module}.d.ts").is_file(), module
    declarations = (dist / "index.d.ts").read_text()
    assert "Ponte" in declarations and "verifyWebhook" in declarations
    assert "sandboxScan(sessionId: string" in (dist / "client.d.ts").read_text()


def test_the_committed_typescript_types_match_the_openapi_document(built, tmp_path) -> None:
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    run("npm", "run", "types", "--", str(document), "--output", str(tmp_path / "schema.ts"))
    committed = (PACKAGE / "src" / "schema.ts").read_text()
    assert (tmp_path / "schema.ts").read_text() == committed, (
        "clients/typescript/src/schema.ts is stale: `cd clients/typescript && npm run generate`"
    )


def _delivered(account, settings) -> dict[str, object]:
    """A delivery Ponte really sent: emitted, attempted by the outbox, captured by a local receiver."""
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    receiver = Receiver().start()
    try:
        session = Session.objects.create(account=account, name="signed", status=Session.Status.CONNECTED)
        Webhook.objects.create(
            account=account, session=session, url=receiver.url, events=["message"], secret="a-long-secret"
        )
        event = emit(session_id=session.id, name="message", data={"id": "M1", "text": "olá ✓"})
        assert outbox.delivery_attempt(delivery_id=Delivery.objects.get(event=event).pk) == "delivered"
        (request,) = receiver.received
    finally:
        receiver.stop()
    session.delete()
    return {"headers": request.headers, "body": request.body.decode(), "secret": "a-long-secret"}


def _signed_with_a_standard_secret() -> dict[str, object]:
    secret = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
    body = b'{"event": "message"}'
    headers = delivery_headers(secret=secret, msg_id="msg_1", body=body, sent_at=datetime.now(UTC))
    return {"headers": headers, "body": body.decode(), "secret": secret}


def test_the_typescript_client_against_a_live_ponte(
    built, ponte, account, admin_key, viewer_key, make_account, make_key, settings, tmp_path
) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    delivery = tmp_path / "delivery.json"
    delivery.write_text(
        json.dumps({"delivered": _delivered(account, settings), "standard": _signed_with_a_standard_secret()})
    )
    env = {
        **os.environ,
        "PONTE_URL": ponte,
        "PONTE_ADMIN_KEY": admin_key,
        "PONTE_VIEWER_KEY": viewer_key,
        "PONTE_NO_SUBSCRIPTION_KEY": make_key(
            ApiKey.Role.ADMIN, for_account=make_account(bonds_subscription=None)
        ),
        "PONTE_DELIVERY": str(delivery),
    }
    output = run("node", "--test", "test/", env=env)
    assert "# fail 0" in output and "# pass 0" not in output


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _check_the_receiver(script: Path, env: dict[str, str], delivered: dict[str, object]) -> None:
    """Start the README's receiver, send it the delivery Ponte signed, then a tampered copy."""
    port = _free_port()
    receiver = subprocess.Popen(
        ["node", str(script)], cwd=PACKAGE, env={**env, "PORT": str(port)}, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert receiver.poll() is None and time.monotonic() < deadline, receiver.stderr
            time.sleep(0.1)
        headers = {k: v for k, v in delivered["headers"].items() if k.startswith("webhook-")}
        body = str(delivered["body"]).encode()
        assert _post(f"http://127.0.0.1:{port}/hook", body, headers) == 204
        assert _post(f"http://127.0.0.1:{port}/hook", body + b" ", headers) == 400
    finally:
        receiver.terminate()
        receiver.wait(10)


def test_every_js_block_of_the_readme_runs_against_a_live_ponte(
    built, ponte, account, admin_key, settings, tmp_path
) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    # As `make run` has it: the bonds example's second keyed call waits out the 5-second rule.
    settings.BONDS_KEY_INTERVAL_SECONDS = 5
    # As in a project that installed the package: node_modules/ponte-client links to it.
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "ponte-client").symlink_to(PACKAGE)
    env = {**os.environ, "PONTE": ponte, "ADMIN_KEY": admin_key}
    blocks = re.findall(r"^```js\n(.*?)^```", (PACKAGE / "README.md").read_text(), flags=re.S | re.M)
    assert len(blocks) == 6
    for number, block in enumerate(blocks):
        script = tmp_path / f"example{number}.mjs"
        script.write_text(block)
        if ".listen(" in block:
            _check_the_receiver(script, env, _delivered(account, settings))
        else:
            run("node", str(script), env=env)
