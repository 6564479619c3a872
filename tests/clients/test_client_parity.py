"""Both clients speak the same API (issue 45): every operation the Python client sends, the TypeScript
client sends too; the TypeScript event names and session statuses are the server's, as union types; a bond
filter value outside the documented lists is a Python warning and a TypeScript type error."""

from __future__ import annotations

import re
import subprocess
import warnings
from pathlib import Path

import pytest
from ponte_client import BondFilterWarning
from ponte_client.ops import BOND_PRODUCTS, BOND_SORT_FIELDS

from bonds.filters import PRODUCTS, SORT_FIELDS
from messaging.models import Session
from tests.clients.typescript_support import PACKAGE
from webhooks.catalogue import ALIASES, EVENTS

PYTHON_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python" / "src" / "ponte_client"
# Every hand-written module of each client (the generated schema.ts names paths, it sends nothing).
TYPESCRIPT_SOURCES = sorted(path for path in (PACKAGE / "src").glob("*.ts") if path.name != "schema.ts")
# The Python client builds these paths from a word: the TypeScript client has one method per word.
PYTHON_PATH_WORDS = {
    "/api/groups/{}": ("/api/groups/subject", "/api/groups/description", "/api/groups/settings"),
}


def _normalised(path: str) -> str:
    return re.sub(r"\$?\{[^}]*\}|\$\{enc\([^)]*\)\}", "{}", path).rstrip("/") or "/"


def python_operations() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for module in sorted(PYTHON_CLIENT.glob("*.py")):
        text = module.read_text()
        for method, path in re.findall(r'Op\(\s*"([A-Z]+)",\s*f?"([^"]+)"', text):
            for each in PYTHON_PATH_WORDS.get(_normalised(path), (path,)):
                found.add((method, _normalised(each)))
        for path in re.findall(r'path = f"([^"]+)"\s*\n\s*return Op\(\s*"GET"', text):
            found.add(("GET", _normalised(path)))
    return found


def typescript_operations() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for source in TYPESCRIPT_SOURCES:
        text = source.read_text()
        literal = r'"([^"]+)"|`([^`]+)`'
        for method, plain, template in re.findall(rf"method: \"([A-Z]+)\", path: (?:{literal})", text):
            found.add((method, _normalised(plain or template)))
        for plain, template, method in re.findall(
            rf"const path = (?:{literal});[\s\S]{{0,200}}?method: \"([A-Z]+)\", path[,\s}}]", text
        ):
            found.add((method, _normalised(plain or template)))
        participants = re.search(r"path: `/api/groups/participants/\$\{action\}`", text)
        if participants:
            found |= {("POST", "/api/groups/participants/{}")}
    return found


def test_the_typescript_client_sends_every_operation_the_python_client_sends() -> None:
    python = python_operations()
    assert len(python) >= 40, sorted(python)  # the parsing found them
    missing = python - typescript_operations()
    assert not missing, f"the TypeScript client lacks {sorted(missing)}"


def _union(name: str) -> set[str]:
    source = (PACKAGE / "src" / "client.ts").read_text()
    body = re.search(rf"export type {name} =([^;]+);", source).group(1)
    return set(re.findall(r'"([^"]+)"', body))


def test_typescript_event_names_and_session_statuses_are_the_servers() -> None:
    assert _union("WebhookEvent") == set(EVENTS) | set(ALIASES)
    assert _union("SessionStatus") == set(Session.Status.values)


def test_the_python_clients_documented_bond_values_are_the_servers() -> None:
    assert set(BOND_PRODUCTS) == set(PRODUCTS) and set(BOND_SORT_FIELDS) == set(SORT_FIELDS)


def test_the_python_client_warns_on_a_bond_filter_outside_the_lists(client) -> None:
    with pytest.warns(BondFilterWarning) as caught:
        page = client.bonds.list(product=["cdb", "xyz"], sort="-bogus")
    assert [str(w.message).split(" ")[0] for w in caught] == ["product", "sort"]
    assert caught[0].filename == __file__  # points at the caller's line
    assert page.bonds  # the server ignored them, as the contract says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client.bonds.list(product=["CDB", "lci"], sort="-net_annualized_return")


def test_a_bond_filter_outside_the_lists_is_a_typescript_type_error(built, tmp_path) -> None:
    def compile_errors(code: str) -> str:
        source = PACKAGE / "test" / f".typecheck-{tmp_path.name}.ts"
        source.write_text('import { Ponte } from "../src/index.js";\n' + code)
        try:
            result = subprocess.run(
                [
                    "npx",
                    "tsc",
                    "--noEmit",
                    "--strict",
                    "--module",
                    "nodenext",
                    "--target",
                    "es2022",
                    "--moduleResolution",
                    "nodenext",
                    "--skipLibCheck",
                    str(source),
                ],
                cwd=PACKAGE,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            source.unlink()
        return result.stdout + result.stderr

    ponte = 'const ponte = new Ponte({ baseUrl: "http://127.0.0.1" });\n'
    assert compile_errors(ponte + 'await ponte.bonds.list({ product: ["cdb"], sort: "-rate" });\n') == ""
    assert "'\"xyz\"' is not assignable" in compile_errors(
        ponte + 'await ponte.bonds.list({ product: ["xyz"] });\n'
    )
    assert "'\"-bogus\"' is not assignable" in compile_errors(
        ponte + 'await ponte.bonds.list({ sort: "-bogus" });\n'
    )
    assert "is not assignable" in compile_errors(
        ponte + 'await ponte.webhooks.create("s", "http://x", ["mesage"]);\n'
    )
