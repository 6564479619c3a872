"""The import contract (.importlinter) holds: `make lint` runs the same check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# Slow (tests/tiers.py): lint-imports runs as a child Python.
@pytest.mark.slow
def test_the_import_contract_holds():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:]
    assert "0 broken" in result.stdout
