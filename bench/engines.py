"""Engine processes: command round trip remote vs in-process, memory per hosted session, takeover time.

1. Round trip: one engine command (`check_contacts` on a paired sandbox session) called in-process
   (SandboxEngine) and through RemoteEngine (Redis → a `run_engine` process → back); p50/p99 of each and
   their ratio.
2. 1,000 paired sandbox sessions over 2 engine processes (production lease and heartbeat settings): the
   RSS each process gains per idle hosted session (target ≤ 1 MB), then one process is killed (SIGKILL)
   and the time until the other hosts all 1,000 is printed.

3. Memory per idle WhatsApp session with the library loaded (bench/whatsapp_memory.py, in a child
   process so the library is loaded only there; runs on SQLite too).

Parts 1 and 2 need PostgreSQL (DATABASE_URL; RemoteEngine refuses SQLite) and the `redis-server`
binary: it starts its own on a free port. Runs on a throw-away test database. On SQLite they are skipped
with a note, and the script exits 0.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings, setup_test_environment  # noqa: E402

CALLS = 300
SESSIONS = 1000
REMOTE = "messaging.engines.remote.RemoteEngine"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.99) - 1] * 1000


def timed(call, n: int = CALLS) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def hosted(redis_url: str, process: str) -> int:
    import json

    import redis

    state = redis.Redis.from_url(redis_url).get(f"ponte:engine:alive:{process}")
    return json.loads(state)["load"] if state else 0


def wait(predicate, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.1)
    raise SystemExit(f"timed out after {timeout} s")


def whatsapp_memory() -> None:
    import subprocess

    print("WhatsApp driver (neonize), idle sessions:")
    script = Path(__file__).resolve().parent / "whatsapp_memory.py"
    subprocess.run([sys.executable, str(script), "20"], check=True, timeout=300)


def main() -> None:
    whatsapp_memory()
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        print("bench/engines.py: RemoteEngine needs PostgreSQL (set DATABASE_URL); nothing measured.")
        return
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    from tests.messaging.engine_support import EngineProcess, RedisServer

    server = RedisServer().start()
    processes: list[EngineProcess] = []
    try:
        from accounts.models import Plan
        from accounts.services import account_create
        from messaging.models import SandboxDevice, Session
        from messaging.services import sessions as services
        from messaging.services.engine import get_engine

        account = account_create(
            name="bench", plan=Plan.objects.get(name="Empresarial"), bonds_subscription=None
        )
        session = Session.objects.create(account=account, name="rt")
        services.session_connect(session=session)
        services.sandbox_scan(session=session)
        sid = str(session.pk)

        # 1. Round trip.
        local = get_engine()
        local_times = timed(lambda: local.check_contacts(sid, ["5511988880002"]))
        # Production lease, heartbeat and connection reuse (the tests' engine processes close theirs).
        env = {"ENGINE_LEASE_SECONDS": "15", "ENGINE_HEARTBEAT_SECONDS": "3", "DB_CONN_MAX_AGE": "60"}
        processes.append(EngineProcess(server.url, env=env).start())
        with override_settings(MESSAGING_ENGINE=REMOTE, ENGINE_REDIS_URL=server.url):
            remote = get_engine()
            remote.check_contacts(sid, ["5511988880002"])  # the first command claims the session
            remote_times = timed(lambda: remote.check_contacts(sid, ["5511988880002"]))
        (lp50, lp99), (rp50, rp99) = percentiles(local_times), percentiles(remote_times)
        print(f"command round trip, {CALLS} calls of check_contacts:")
        print(f"  in-process  p50 {lp50:7.2f} ms  p99 {lp99:7.2f} ms")
        print(f"  remote      p50 {rp50:7.2f} ms  p99 {rp99:7.2f} ms")
        print(f"  ratio remote/in-process: p50 {rp50 / lp50:.1f}x  p99 {rp99 / lp99:.1f}x")
        processes.pop().stop()

        # 2. 1,000 paired sessions over 2 processes.
        server.flush()
        # Room for all of them in one process (plus the round-trip session), as after a takeover.
        pair = [EngineProcess(server.url, env=env, max_sessions=SESSIONS + 100).start() for _ in range(2)]
        processes.extend(pair)
        time.sleep(4)  # settle: both idle, registered
        before = {p.id: rss_kib(p.pid) for p in pair}
        rows = [
            Session(account=account, name=f"s{i}", status="connected", jid=f"55119{i:08d}@s.whatsapp.net")
            for i in range(SESSIONS)
        ]
        for row in rows:  # bulk_create skips save(), which issues each session's instance key
            row.instance_key_issue()
        rows = Session.objects.bulk_create(rows)
        SandboxDevice.objects.bulk_create(
            SandboxDevice(
                session_id=row.pk,
                credentials={"phone": row.jid.split("@")[0]},
                jid=row.jid,
                push_name="bench",
            )
            for row in rows
        )
        took = wait(lambda: sum(hosted(server.url, p.id) for p in pair) >= SESSIONS + 1, timeout=120)
        time.sleep(4)  # a few idle heartbeats
        loads = {p.id: hosted(server.url, p.id) for p in pair}
        grown = {p.id: rss_kib(p.pid) - before[p.id] for p in pair}
        per_session = sum(grown.values()) / sum(loads.values())
        print(f"{SESSIONS} paired sandbox sessions over 2 engine processes (taken over in {took:.1f} s):")
        for p in pair:
            print(f"  {p.id}: {loads[p.id]} sessions, RSS +{grown[p.id] / 1024:.1f} MiB")
        print(f"  memory per idle sandbox session: {per_session:.1f} KiB (target ≤ 1024 KiB)")

        victim, survivor = pair
        victim.kill()
        total = sum(loads.values())
        took = wait(lambda: hosted(server.url, survivor.id) >= total, timeout=120)
        print(f"  SIGKILL of one process: the other hosts all {total} after {took:.1f} s (heartbeat 3 s)")
    finally:
        for process in processes:
            process.stop()
        server.stop()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
