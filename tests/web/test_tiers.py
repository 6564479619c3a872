"""The fast tier (`make test-fast`, `-m "not live"`) leaves out exactly the tests that need a server or a
process beside them, classified at collection by tests/tiers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tiers import require_live

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    "tests/e2e/test_console.py",
    "tests/web/test_metrics.py",
    "tests/web/test_request_logs.py",
    "tests/webhooks/test_worker_delivery.py",
]


def fast_tier_of(*modules: str) -> list[str]:
    """The node ids `make test-fast` would run among `modules`."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not live", *modules]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return [line for line in result.stdout.splitlines() if "::" in line]


# Slow (tests/tiers.py): a child pytest collects the modules.
@pytest.mark.slow
def test_the_fast_tier_leaves_out_live_directories_fixtures_and_marks_and_keeps_the_rest():
    kept = fast_tier_of(*MODULES)
    assert not [node for node in kept if node.startswith("tests/e2e/")]  # by directory
    assert not [node for node in kept if "test_worker_delivery" in node]  # start_worker, a Celery worker
    metrics = [node.split("::")[1] for node in kept if "test_metrics" in node]
    assert "test_an_open_metrics_endpoint_is_reported_when_debug_is_off" in metrics  # Django's test client
    assert "test_every_metric_the_grafana_dashboard_uses_is_exported" not in metrics  # start_web
    logs = [node.split("::")[1] for node in kept if "test_request_logs" in node]
    assert "test_logged_paths_hide_instance_keys_and_account_link_tokens" in logs
    assert not [name for name in logs if "delivery_attempt_log_line" in name]  # marked worker


def test_a_test_outside_the_live_tier_that_starts_a_process_fails_naming_the_mark():
    with pytest.raises(AssertionError, match=r"not marked live: add `pytest\.mark\.live`"):
        require_live("a web process")


@pytest.mark.live
def test_a_live_test_may_start_processes():
    require_live("a web process")


# Slow (tests/tiers.py): a child pytest collects the whole suite.
@pytest.mark.slow
def test_the_fast_tier_does_not_even_import_the_live_directories():
    script = (
        "import sys, pytest\n"
        "pytest.main(['--collect-only', '-q', '-m', 'not live'])\n"
        "live = ('tests.e2e', 'tests.deploy', 'tests.clients')\n"
        "print('imported:', sorted(name for name in sys.modules if name.startswith(live)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert "imported: []" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
