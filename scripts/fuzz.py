"""Fuzz every operation of the OpenAPI document against a live server with schemathesis (`make fuzz`).

Starts the web process the way the Procfile does, on a free port, against the configured database and
cache (CI: PostgreSQL + Redis), creates an account on the Empresarial plan with an admin key, and in a
second account a sandbox session whose instance key drives the /instances/ routes, then runs
schemathesis with every check for a bounded time. Exits non-zero on any failure: a 5xx, a reply outside
the schema, or any other check.

    python scripts/fuzz.py            # PONTE_FUZZ_SECONDS (default 100) of fuzzing
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

# The web server, as the Procfile starts it. The one place to change when the server model changes;
# `{host}` and `{port}` are filled in.
SERVER_COMMAND = os.environ.get(
    "PONTE_FUZZ_SERVER",
    "uvicorn config.asgi:application --host {host} --port {port} --no-access-log",
)
HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FUZZ_SECONDS = int(os.environ.get("PONTE_FUZZ_SECONDS", "100"))
CONFIG_FILE = ROOT / "scripts" / "schemathesis.toml"
SERVER_LOG = ROOT / "var" / "fuzz-server.log"
SESSIONS_DICTIONARY = ROOT / "var" / "fuzz-sessions.dict"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def prepare() -> dict[str, str]:
    """Migrate, then create the accounts, admin key and sandbox sessions the run uses."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from messaging.services.sessions import sandbox_scan, session_connect, session_create

    name = f"fuzz-{int(time.time())}-{os.getpid()}"
    account = account_create(name=name, plan=Plan.objects.get(name="Empresarial"))
    _, admin_key = api_key_create(account=account, role="admin", name="fuzz")
    # DELETE /api/keys/{key_id} revokes: aimed at this key, never at the run's own admin key.
    spare, _ = api_key_create(account=account, role="viewer", name="fuzz: revoked by the run")
    # The instance routes' credential is the instance key in their path. Its session belongs to another
    # account, out of the admin key's reach: the stateful phase finds the admin's sessions through
    # GET /api/sessions and would regenerate this key (POST /api/sessions/{id}/instance-key) or delete
    # the session, after which every instance call is an unknown key, counted by the key-guessing guard
    # (webhooks/instance/guard.py) until the address gets 429 for the rest of the window.
    owner = account_create(name=f"{name}-instances", plan=Plan.objects.get(name="Empresarial"))
    session = session_create(account=owner, name="fuzz instance")
    # A connected sandbox session, offered to the session ids of requests (scripts/schemathesis.toml)
    # so sends, groups and profiles run past "session not found".
    target = session_create(account=account, name="fuzz target")
    session_connect(session=target)
    sandbox_scan(session=target, phone="5511999990000")
    SESSIONS_DICTIONARY.parent.mkdir(parents=True, exist_ok=True)
    SESSIONS_DICTIONARY.write_text(f'"{target.pk}"\n')
    return {
        "PONTE_FUZZ_ADMIN_KEY": admin_key,
        "PONTE_FUZZ_SPARE_KEY_ID": str(spare.pk),
        "PONTE_FUZZ_INSTANCE_KEY": session.instance_key,
    }


def wait_until_up(base_url: str, server: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server did not answer {base_url}/healthz within {seconds:.0f} s")


def print_server_errors() -> None:
    lines = SERVER_LOG.read_text(errors="replace").splitlines()
    errors = [n for n, line in enumerate(lines) if " ERROR " in line or line.startswith("Traceback")]
    print(f"fuzz: the server logged {len(errors)} error(s); its whole log is {SERVER_LOG}")
    for n in errors[:5]:
        print("\n".join(lines[n : n + 40]))


def main() -> int:
    # Calls without a key are limited per address (60/min); schemathesis makes hundreds of them to
    # check that each answers 401, so the server gets a roomier anonymous limit. Per-key limits stay.
    env = {**os.environ, **prepare(), "PONTE_ANONYMOUS_REQUESTS_PER_MINUTE": "100000"}
    # The server shares this process's settings (DEBUG, SECRET_KEY and the keys derived from it), so
    # it reads what prepare() wrote.
    server_env = env
    port = free_port()
    base_url = f"http://{HOST}:{port}"
    command = shlex.split(SERVER_COMMAND.format(host=HOST, port=port))
    # Every refused request logs a warning: the server's log goes to a file, and its errors are
    # printed after the run.
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    log = SERVER_LOG.open("w")
    path = f"{BIN}:{env.get('PATH', '')}"
    server = subprocess.Popen(command, cwd=ROOT, env={**server_env, "PATH": path}, stdout=log, stderr=log)
    started = time.monotonic()
    try:
        wait_until_up(base_url, server)
        run = [
            str(BIN / "schemathesis"),
            "--config-file",
            str(CONFIG_FILE),
            "run",
            f"{base_url}/schema/",
            "--max-time",
            str(FUZZ_SECONDS),
            "--header",
            f"X-API-Key: {env['PONTE_FUZZ_ADMIN_KEY']}",
            "--request-timeout",
            "15",
            "--seed",
            os.environ.get("PONTE_FUZZ_SEED", "1"),
            *sys.argv[1:],
        ]
        print("+", shlex.join(run).replace(env["PONTE_FUZZ_ADMIN_KEY"], "$ADMIN_KEY"), flush=True)
        result = subprocess.run(run, cwd=ROOT, env=env)
        print(f"fuzz: schemathesis exited {result.returncode} after {time.monotonic() - started:.0f} s")
        return result.returncode
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        print_server_errors()


if __name__ == "__main__":
    sys.exit(main())
