"""The systemd units of the deploy guide (docs/deploy/) start each process as the Procfile does: the
Procfile stays the one place where a process's command and options are decided."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "docs" / "deploy"
VENV = "/opt/ponte/.venv/bin/"
# Shell defaults of the Procfile and what systemd gives in their place (the unit's instance name, or a
# variable of /etc/ponte/ponte.env, which the unit defaults with Environment= where needed).
SYSTEMD_FORMS = {
    "${PONTE_HOST:-127.0.0.1}": "127.0.0.1",
    "${PONTE_PORT:-8000}": "%i",
    "${PONTE_TRUSTED_PROXIES:-}": "${PONTE_TRUSTED_PROXIES}",
    "${WORKER_CONCURRENCY:-8}": "${WORKER_CONCURRENCY}",
    "${PONTE_WS_PING_SECONDS:-20}": "${PONTE_WS_PING_SECONDS}",
    "${PONTE_WS_PING_TIMEOUT_SECONDS:-20}": "${PONTE_WS_PING_TIMEOUT_SECONDS}",
}


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {name: command.strip() for name, _, command in (line.partition(":") for line in lines if line)}


def exec_start(unit: str) -> str:
    for line in (UNITS / unit).read_text().splitlines():
        if line.startswith("ExecStart="):
            return line.removeprefix("ExecStart=")
    raise AssertionError(f"{unit} has no ExecStart")


@pytest.mark.parametrize(
    ("process", "unit"),
    [
        ("web", "ponte-web@.service"),
        ("worker", "ponte-worker.service"),
        ("beat", "ponte-beat.service"),
        ("engine", "ponte-engine@.service"),
    ],
)
def test_each_systemd_unit_runs_its_procfile_line(process, unit):
    expected = procfile()[process]
    for shell_form, systemd_form in SYSTEMD_FORMS.items():
        expected = expected.replace(f'"{shell_form}"', shell_form).replace(shell_form, systemd_form)
    command = exec_start(unit).replace(VENV, "")
    assert shlex.split(command) == shlex.split(expected)


def test_the_worker_unit_defaults_its_concurrency_like_the_procfile():
    assert "Environment=WORKER_CONCURRENCY=8" in (UNITS / "ponte-worker.service").read_text()
