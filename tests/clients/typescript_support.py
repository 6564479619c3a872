"""The TypeScript client's package for the tests that run it: built once from its lock file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"


def run(*command: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    """Run a node or npm command in the package; on failure, show everything it printed."""
    result = subprocess.run(command, cwd=PACKAGE, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(command)} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


def build() -> None:
    """Dependencies installed from the lock file (once: kept in node_modules until the lock changes), then
    `npm run build` into dist/."""
    if not (shutil.which("node") and shutil.which("npm")):
        # A missing toolchain fails rather than skips: the suite must not pass without these tests
        # (.ci/run and scripts/install-packages.sh install both).
        pytest.fail("node and npm are needed (sh scripts/install-packages.sh, or apt-get install nodejs npm)")
    installed = PACKAGE / "node_modules" / ".package-lock.json"
    lock = PACKAGE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        run("npm", "ci", "--no-audit", "--no-fund")
    run("npm", "run", "build")
