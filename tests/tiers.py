"""The suite's two tiers: the whole suite (`make test`) and the fast tier (`make test-fast`, `-m "not live"`).

A test is `live` when it needs a running server or process beside the test: Django's live_server, a
browser, a Celery worker, an engine process, a web process (uvicorn, the Procfile's line), nginx, node.
It is classified here, at collection, so a new test needs no decorator: by its directory (every test of
tests/e2e, tests/deploy and tests/clients is live), by the fixtures it uses (directly or through other
fixtures), and by the `browser` and `worker` marks. A test that starts such a process by hand (not
through one of these fixtures) says so with `pytest.mark.live`; the helpers that start processes call
`require_live`, so a test that forgets fails in both tiers with a message naming the mark, rather than
slowing the fast tier down unnoticed.

The fast tier tests logic, not time, and must run in under a minute (README): a test that waits on
purpose (a real timeout, a lease or cache expiry, threads racing for seconds), starts a child Python
(settings read at start-up, a manage.py command from the shell, another process's view of a cache) or
migrates the schema back and forth carries `pytest.mark.slow` with a comment saying which, and is put
in the live tier with the rest: `make test` runs it, `make test-fast` leaves it out. A test that uses
`subprocess_env` (tests/conftest.py: a child process on the test database) is slow by that fixture.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
LIVE_DIRECTORIES = frozenset({"e2e", "deploy", "clients"})
LIVE_FIXTURES = frozenset(
    {
        "live_server",  # pytest-django's server thread (the clients' `ponte`, the e2e logins use it)
        "live_server_url",  # the MCP router under uvicorn in a thread (tests/bonds/mcp_support.py)
        "browser",  # headless Chromium (tests/e2e/conftest.py)
        "start_worker",  # Celery worker processes (tests/webhooks/conftest.py)
        "worker",  # one Celery worker process (tests/e2e/conftest.py)
        "start_engine",  # run_engine processes (tests/messaging/conftest.py)
        "engine_redis",  # the engine bus's private redis-server (tests/messaging/conftest.py)
        "web",  # by convention, a fixture of this name or the next two starts web processes
        "start_web",
        "web_process",
        "subprocess_env",  # a child Django process on the test database (tests/conftest.py)
    }
)
LIVE_MARKS = ("browser", "worker", "slow")

_running: pytest.Item | None = None


def is_live(item: pytest.Item) -> bool:
    try:
        directory = item.path.resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        directory = ""
    return (
        directory in LIVE_DIRECTORIES
        or not LIVE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))
        or any(item.get_closest_marker(name) for name in (*LIVE_MARKS, "live"))
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m "not live"` (the fast tier) does not import the live directories at all: every test there
    would be deselected, and importing them (selenium, trio, the clients) costs each xdist worker ~0.5 s."""
    if config.getoption("markexpr", "") != "not live" or collection_path.parent != TESTS:
        return None
    return True if collection_path.name in LIVE_DIRECTORIES else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_live(item) and item.get_closest_marker("live") is None:
            item.add_marker(pytest.mark.live)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    global _running
    _running = item
    try:
        return (yield)
    finally:
        _running = None


def require_live(what: str) -> None:
    """Called by the helpers that start a server or process: the running test must be in the live tier."""
    if _running is not None and _running.get_closest_marker("live") is None:
        raise AssertionError(
            f"{_running.nodeid} starts {what} but is not marked live: add `pytest.mark.live` (or use one "
            "of the live fixtures of tests/tiers.py) so that `make test-fast` leaves it out"
        )
