"""Every shell, Python and JavaScript block of README.md, docs/*.md and both clients' READMEs runs as
written against a server set up as `make run` sets it up: migrated, the demo data loaded, the Procfile's
web process and a Celery worker, the demo keys. The snippets read the address and keys from the variables
the docs tell the reader to export from `make run`'s output; this test exports them the same way. The
blocks run in order as in one shell: what one exports, and where it `cd`s, the next sees (a placeholder
`export KEY=ponte_xxx` would overwrite the demo key for every later block, so none may)."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
import time
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.clients.snippets import (
    BOND_REFUSALS,
    DEMO_NAMES,
    JAVASCRIPT,
    OVERWRITES_DEMO_NAME,
    PYTHON,
    ROOT,
    SHELL,
    UNSAFE,
    Block,
    blocks_of,
    documents,
    stray_markers,
)
from tests.clients.typescript_support import PACKAGE
from tests.conftest import database_url_of_test_db
from tests.deploy.support import free_port, start_web, stop
from tests.webhooks.support import Worker

BLOCK_TIMEOUT = 60  # seconds; the slowest block waits out the 5-second bond rule twice
BOND_INTERVAL = 5.2  # seconds between blocks that call the bond list with a key, as a reader's pace


def test_every_not_run_marker_gives_a_reason_and_sits_right_before_a_block() -> None:
    for path in documents():
        assert not stray_markers(path), f"{path}: a not-run marker not followed by a code fence"
        for block in blocks_of(path):
            assert block.not_run is None or block.not_run, f"{block}: a not-run marker without a reason"


def test_a_bond_refusal_in_a_snippets_output_is_a_failure() -> None:
    assert BOND_REFUSALS.search('{"response": {"status": "rate_limited", "description": "Wait 5 seconds"}}')
    assert BOND_REFUSALS.search("[x-ponte-status: no_subscription]")
    assert not BOND_REFUSALS.search('{"response": {"status": "ok"}}\n[x-ponte-status: preview]')


def test_a_block_fails_when_it_exits_non_zero_prints_a_bond_refusal_or_would_change_the_machine(
    tmp_path,
) -> None:
    env = {**os.environ}

    def block(code: str, lang: str = "sh") -> Block:
        return Block(path="docs/example.md", line=1, lang=lang, code=code, not_run=None)

    assert _run(block("true\n"), env, tmp_path) == ""
    assert _run(block("print('ok')\n", "python"), env, tmp_path) == ""
    assert "exited 1" in _run(block("false\necho never\n"), env, tmp_path)
    assert "exited 1" in _run(block("raise SystemExit(1)\n", "python"), env, tmp_path)
    refused = """echo '{"response": {"status": "rate_limited", "description": "Wait 5 seconds"}}'\n"""
    assert "bond refusal" in _run(block(refused), env, tmp_path)
    assert "would change this machine" in _run(block("sudo true\n"), env, tmp_path)


def test_no_block_overwrites_a_name_make_run_exports() -> None:
    for path in documents():
        for block in blocks_of(path):
            if block.lang in SHELL and block.not_run is None:
                found = OVERWRITES_DEMO_NAME.search(block.code)
                assert not found, f"{block} overwrites {found.group(1)}: write `${{{found.group(1)}:-...}}`"


def test_blocks_share_one_shell_in_order(tmp_path) -> None:
    env = {**os.environ}

    def block(code: str, lang: str = "sh") -> Block:
        return Block(path="docs/example.md", line=1, lang=lang, code=code, not_run=None)

    assert _run(block("export GREETING=ola\nmkdir -p inner && cd inner\n"), env, tmp_path) == ""
    assert _run(block('test "$GREETING" = ola && test "$(basename "$PWD")" = inner\n'), env, tmp_path) == ""
    assert _run(block("import os\nassert os.environ['GREETING'] == 'ola'\n", "python"), env, tmp_path) == ""
    assert _run(block("if (process.env.GREETING !== 'ola') process.exit(3);\n", "js"), env, tmp_path) == ""
    assert "exited 3" in _run(block("process.exit(3);\n", "js"), env, tmp_path)


def test_the_unsafe_check_refuses_set_up_commands_but_not_their_mention_in_a_comment() -> None:
    assert UNSAFE.search("sudo true") and UNSAFE.search("cd x && make run") and UNSAFE.search("make test")
    assert not UNSAFE.search("export KEY=x  # `make run` prints demo keys\ncurl $PONTE/api/me")


def _curl_that_fails_on_errors(bin_dir: Path) -> None:
    """`curl` for the snippets: the real one, failing on HTTP errors and reporting the bond status header
    on stderr (an HTTP 200 bond reply can still be a refusal)."""
    real = shutil.which("curl")
    assert real, "the snippets need curl"
    wrapper = bin_dir / "curl"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'exec {real} --no-progress-meter --fail-with-body -w "%{{stderr}}[x-ponte-status: '
        f'%header{{x-ponte-status}}]\\n" "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)


def _exports_printed_by_make_run(base: str, settings) -> dict[str, str]:
    """The `export ...` line `make run` prints last (`manage.py demo_keys`), read as the reader would."""
    settings.PONTE_BASE_URL = base
    out = StringIO()
    call_command("demo_keys", stdout=out)
    (line,) = [line for line in out.getvalue().splitlines() if line.strip().startswith("export ")]
    return dict(word.split("=", 1) for word in shlex.split(line)[1:])


def _reader_environment(workdir: Path, base: str, settings) -> dict[str, str]:
    """This process's environment with the variables the docs tell the reader to export from `make run`'s
    output, this checkout's client, and a `curl` that reports failures."""
    exports = _exports_printed_by_make_run(base, settings)
    assert set(DEMO_NAMES) <= set(exports)
    bin_dir = workdir / "bin"
    bin_dir.mkdir()
    _curl_that_fails_on_errors(bin_dir)
    (workdir / ".venv").symlink_to(ROOT / ".venv")  # `.venv/bin/python manage.py` from the checkout
    (workdir / "manage.py").symlink_to(ROOT / "manage.py")
    # As in a project that installed the TypeScript client: `import ... from "ponte-client"`.
    (workdir / "node_modules").mkdir()
    (workdir / "node_modules" / "ponte-client").symlink_to(PACKAGE)
    python_path = [str(ROOT / "clients" / "python" / "src"), os.environ.get("PYTHONPATH", "")]
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join(filter(None, python_path)),  # this checkout's client
        "DATABASE_URL": database_url_of_test_db(),
        "PONTE_VAR_DIR": str(workdir / "var"),
        **exports,
    }


# Each block starts where the last one left the shell (its exports and folder) and saves its own on exit.
SHELL_STATE = """
[ -f "$SNIPPET_STATE" ] && . "$SNIPPET_STATE"
[ -f "$SNIPPET_STATE.cwd" ] && cd "$(cat "$SNIPPET_STATE.cwd")"
trap 'export -p > "$SNIPPET_STATE"; pwd > "$SNIPPET_STATE.cwd"' EXIT
"""


def _command(block: Block, workdir: Path) -> list[str]:
    if block.lang in SHELL:
        return ["bash", "-e", "-o", "pipefail", "-c", SHELL_STATE + block.code]
    # Python and node run from that shell, with its variables, as a reader would start them there.
    if block.lang in PYTHON:
        script = workdir / "snippet.py"
        start = f'exec {shlex.quote(sys.executable)} "{script}"'
    else:
        assert block.lang in JAVASCRIPT
        script = workdir / "snippet.mjs"  # ES modules, next to node_modules/ponte-client
        start = f'exec node "{script}"'
    script.write_text(block.code)
    return ["bash", "-e", "-c", SHELL_STATE.replace("trap", ": trap") + start]


def _run(block: Block, env: dict[str, str], workdir: Path) -> str:
    """The block's failure (its output), or "" when it ran."""
    unsafe = UNSAFE.search(block.code)
    if unsafe:
        return f"{block} would change this machine ({unsafe.group(0)!r}): not run; mark it not-run"
    env = {**env, "SNIPPET_STATE": str(workdir / "shell-state.sh")}
    try:
        result = subprocess.run(
            _command(block, workdir),
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        return f"{block} did not finish within {BLOCK_TIMEOUT} s\n{exc.stdout}\n{exc.stderr}"
    output = f"{result.stdout}\n{result.stderr}"
    if result.returncode != 0:
        return f"{block} exited {result.returncode}\n{output[-3000:]}"
    refusal = BOND_REFUSALS.search(output)
    if refusal:
        return f"{block} printed a bond refusal ({refusal.group(0)})\n{output[-3000:]}"
    return ""


def _calls_bonds(block: Block) -> bool:
    return "bonds" in block.code and ("KEY" in block.code or "key" in block.code)


@pytest.fixture
def demo_server(transactional_db, default_plans, tmp_path, built) -> str:
    """`make run`'s web process and a worker (on the web's broker: the same var dir), on a free port and
    the test database with the demo data loaded."""
    call_command("load_demo", stdout=StringIO())
    port = free_port()
    (tmp_path / "var").mkdir()
    shared = {"PONTE_VAR_DIR": str(tmp_path / "var"), "PONTE_WEBHOOK_ALLOW_NETWORKS": "127.0.0.1/32"}
    web = start_web(port, PONTE_BASE_URL=f"http://127.0.0.1:{port}", **shared)
    worker = Worker(env={**shared, "PONTE_WEBHOOK_RETRY_DELAY_SCALE": "1"}).start()
    yield f"http://127.0.0.1:{port}"
    worker.stop()
    stop(web)


def test_every_unmarked_snippet_runs_against_a_demo_server(demo_server, tmp_path, settings) -> None:
    workdir = tmp_path / "reader"
    workdir.mkdir()
    env = _reader_environment(workdir, demo_server, settings)
    ran: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    failures: list[str] = []
    last_bonds_call = 0.0
    for path in documents():
        for block in blocks_of(path):
            if not block.runnable:
                continue
            if block.not_run is not None:
                skipped[block.path] += 1
                continue
            if _calls_bonds(block):  # a reader takes more than 5 s between two examples
                time.sleep(max(0.0, last_bonds_call + BOND_INTERVAL - time.monotonic()))
            failure = _run(block, env, workdir)
            if _calls_bonds(block):
                last_bonds_call = time.monotonic()
            ran[block.path] += 1
            if failure:
                failures.append(failure)
    report = "\n".join(
        f"  {name}: {ran[name]} ran, {skipped[name]} not run" for name in sorted(set(ran) | set(skipped))
    )
    print(f"snippets per file:\n{report}")
    assert not failures, "\n\n".join(failures) + f"\n\nsnippets per file:\n{report}"
    assert sum(ran.values()) >= 20
