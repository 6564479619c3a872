"""scripts/install-packages.sh, README's install line: as root without sudo, as a user through sudo, only
what is missing, each package on its own, and npm only when Node came without it (Debian's nodejs) rather
than beside NodeSource's, which carries npm and conflicts with Debian's npm package (issue 45).

apt-get, sudo and the commands looked for are stand-ins on a PATH of their own: nothing is installed."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-packages.sh"
EVERY_COMMAND = ("chromium", "chromedriver", "redis-server", "nginx", "msgfmt", "node", "npm")


def stub(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f"#!/bin/sh\n{body}\n")
    (folder / name).chmod(0o755)


def run(tmp_path: Path, *, uid: int, present: tuple[str, ...], broken: str = "") -> tuple[str, list[str]]:
    """The script's output and the apt-get calls it made (with sudo's name in front when it used sudo)."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    stub(bin_dir, "id", f"echo {uid}")
    stub(bin_dir, "sudo", f'echo sudo >> {log}; exec "$@"')
    # apt-get "installs" a package by making its commands exist; nodejs from Debian comes without npm.
    provides = {"chromium": "chromium", "chromium-driver": "chromedriver", "redis-server": "redis-server"}
    provides |= {"nginx": "nginx", "gettext": "msgfmt", "nodejs": "node", "npm": "npm"}
    cases = "".join(
        f'    {package}) printf "#!/bin/sh\\n" > {bin_dir}/{command}; /bin/chmod +x {bin_dir}/{command};;\n'
        for package, command in provides.items()
    )
    stub(
        bin_dir,
        "apt-get",
        f'echo "apt-get $*" >> {log}\n[ "$1" = install ] || exit 0\npackage=$(eval echo \\${{$#}})\n'
        f'[ "$package" = "{broken}" ] && exit 100\ncase "$package" in\n{cases}esac',
    )
    for command in present:
        stub(bin_dir, command, "")
    result = subprocess.run(
        ["/bin/sh", str(SCRIPT)],
        env={"PATH": str(bin_dir), "SBIN_DIRS": ""},
        capture_output=True,
        text=True,
        timeout=30,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return result.stdout + result.stderr + f"\nexit {result.returncode}", calls


def test_as_root_it_installs_each_missing_package_on_its_own_without_sudo(tmp_path) -> None:
    output, calls = run(tmp_path, uid=0, present=("chromium", "redis-server"))
    assert "sudo" not in calls
    installs = [call for call in calls if call.startswith("apt-get install")]
    assert installs == [
        f"apt-get install -y -q {package}"
        for package in ("chromium-driver", "nginx", "gettext", "nodejs", "npm")
    ]
    assert output.endswith("exit 0")


def test_as_a_user_it_goes_through_sudo(tmp_path) -> None:
    output, calls = run(tmp_path, uid=1000, present=EVERY_COMMAND[:-2])
    assert calls.count("sudo") == 3 and "apt-get install -y -q nodejs" in calls  # update, nodejs, npm
    assert output.endswith("exit 0")


def test_nodesources_node_with_its_own_npm_gets_no_debian_npm(tmp_path) -> None:
    output, calls = run(tmp_path, uid=0, present=("chromium", "chromedriver", "node", "npm"))
    assert not [call for call in calls if call.endswith(" npm") or call.endswith(" nodejs")]
    assert output.endswith("exit 0")


def test_nothing_missing_installs_nothing(tmp_path) -> None:
    output, calls = run(tmp_path, uid=0, present=EVERY_COMMAND)
    assert calls == [] and "Every package the suite uses is installed." in output


def test_one_package_failing_does_not_stop_the_others_and_is_reported(tmp_path) -> None:
    output, calls = run(tmp_path, uid=0, present=(), broken="nginx")
    assert "apt-get install -y -q gettext" in calls and "apt-get install -y -q npm" in calls
    assert "Could not install: nginx" in output and output.endswith("exit 1")
