"""Calls/s of the bonds MCP tools over Streamable HTTP (stateless JSON-RPC POSTs to /bonds/mcp), each
against the SDK's own floor on the same server in the same run: a `tools/list` call, which does no
database work. Printed as ratios (tool / floor), so the cost of the tool's own work shows.

    .venv/bin/python bench/mcp.py [--seconds 2] [--clients 4]

Runs on a throw-away SQLite database (2,000 demo offers) in a temporary directory; keyed calls run
with BONDS_KEY_INTERVAL_SECONDS=0 (with the 5-second rule on, a key makes one call every 5 s).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

from serving import start_web  # bench/ is sys.path[0]

ROOT = Path(__file__).resolve().parent.parent
OFFERS = 2000


def prepare() -> tuple[str, int, str]:
    """Migrate, load the offers, issue a key. Returns (key, a bond id, today + 2 years)."""
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from bonds import demo
    from bonds.models import Bond

    call_command("migrate", verbosity=0)
    demo.load(stdout=open(os.devnull, "w"), count=OFFERS - len(demo.TESOURO))  # noqa: SIM115
    account = account_create(
        name="bench", plan=Plan.objects.get(name="Empresarial"), bonds_subscription="active"
    )
    _, key = api_key_create(account=account, role="viewer")
    bond = Bond.objects.filter(is_active=True).order_by("id").first()
    return key, bond.pk, (timezone.localdate() + timedelta(days=730)).isoformat()


def hammer(port: int, body: bytes, headers: dict[str, str], seconds: float, clients: int) -> float:
    counts = [0] * clients
    stop = time.monotonic() + seconds

    def run(slot: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            connection.request("POST", "/bonds/mcp", body=body, headers=headers)
            response = connection.getresponse()
            reply = json.loads(response.read())
            if response.status != 200 or "error" in reply or reply["result"].get("isError"):
                raise RuntimeError(f"HTTP {response.status}: {str(reply)[:300]}")
            counts[slot] += 1
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started)


def rpc(method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="ponte-bench-mcp-"))
    os.environ.pop("DATABASE_URL", None)
    os.environ.update(
        {
            "PONTE_VAR_DIR": str(workdir),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "BONDS_KEY_INTERVAL_SECONDS": "0",
            "DEBUG": "false",
            "SECRET_KEY": "bench-only-secret-key-not-used-anywhere-else-0123456789",
            "PONTE_SECRET_KEYS": "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=",
            "LOG_LEVEL": "WARNING",
        }
    )
    key, bond_id, in_two_years = prepare()
    server, port = start_web(os.environ.copy())
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    keyed = {**base, "Authorization": f"Bearer {key}"}
    window = {"min_maturity": in_two_years[:8] + "01", "max_maturity": in_two_years}
    cases = {
        "list_bonds (preview)": (rpc("tools/call", {"name": "list_bonds", "arguments": {}}), base),
        "list_bonds (20, ok)": (rpc("tools/call", {"name": "list_bonds", "arguments": {}}), keyed),
        "list_bonds (2y, 10k)": (
            rpc("tools/call", {"name": "list_bonds", "arguments": {**window, "amount": 10000}}),
            keyed,
        ),
        "project_bond": (
            rpc("tools/call", {"name": "project_bond", "arguments": {"bond_id": bond_id, "amount": 10000}}),
            keyed,
        ),
        "explain_bonds": (rpc("tools/call", {"name": "explain_bonds", "arguments": {}}), base),
    }
    floor_body = rpc("tools/list", {})
    try:
        print(
            f"mcp bench: {OFFERS} active offers, uvicorn (1 process), {args.clients} keep-alive clients, "
            f"{args.seconds:g} s per case in 0.5 s slices alternating with the tools/list floor, SQLite"
        )
        for body, headers in cases.values():  # warm up
            hammer(port, body, headers, 0.2, 1)
        slices = max(1, int(args.seconds / 0.5))
        for name, (body, headers) in cases.items():
            tool, floor = 0.0, 0.0
            for _slice in range(slices):
                tool += hammer(port, body, headers, 0.5, args.clients)
                floor += hammer(port, floor_body, base, 0.5, args.clients)
            tool, floor = tool / slices, floor / slices
            print(
                f"  {name:<22} {tool:8.1f} calls/s  tools/list {floor:8.1f} calls/s  ratio {tool / floor:.2f}"
            )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
