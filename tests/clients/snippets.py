"""The runnable code blocks of Ponte's Markdown: shell (`sh`, `bash`, `console`, `shell`), Python
(`python`, `py`) and JavaScript (`js`, `javascript`, `mjs`: run by node, as ES modules) fences of README.md,
docs/*.md and both clients' READMEs. They run in order, as in one shell: what a block exports (and the
folder it moves to) is there for the next.

A block that cannot run against `make run` (a production host, systemd, a receiver that waits forever, a
fragment) is marked by an HTML comment on the line before its fence, with the reason:
`<!-- not-run: a production host -->`. Everything else must run as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/*.md", "clients/python/README.md", "clients/typescript/README.md")
SHELL = frozenset({"sh", "bash", "console", "shell"})
PYTHON = frozenset({"python", "py"})
JAVASCRIPT = frozenset({"js", "javascript", "mjs"})
# The names `make run`'s last line exports: a block may give them a default, never overwrite them.
DEMO_NAMES = ("PONTE", "ADMIN_KEY", "KEY", "PONTE_KEY", "PONTE_API_KEY", "SID", "WAITING_SID")
OVERWRITES_DEMO_NAME = re.compile(rf"\bexport\s+(?:[A-Z_]+=\S*\s+)*({'|'.join(DEMO_NAMES)})=(?!\"?\$\{{\1:-)")
_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
_NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    not_run: str | None  # the marker's reason, None when the block must run

    @property
    def runnable(self) -> bool:
        return self.lang in SHELL or self.lang in PYTHON or self.lang in JAVASCRIPT

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.lang})"


def documents() -> list[Path]:
    found: list[Path] = []
    for pattern in DOCUMENTS:
        found += sorted(ROOT.glob(pattern))
    return found


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the not-run marker just before it, if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        indent = len(opening.group("indent"))
        code = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
        marker = _NOT_RUN.match(lines[index - 1]) if index else None
        blocks.append(
            Block(
                path=str(path.relative_to(ROOT)),
                line=index + 1,
                lang=opening.group("lang").lower(),
                code=code,
                not_run=marker.group("reason") if marker else None,
            )
        )
        index = end + 1
    return blocks


def stray_markers(path: Path) -> list[int]:
    """Lines of not-run markers that do not sit right before a fence (a marker that skips nothing)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        number + 1
        for number, line in enumerate(lines)
        if _NOT_RUN.match(line) and (number + 1 >= len(lines) or not _FENCE.match(lines[number + 1]))
    ]


# What a bond reply says when it gave no bonds: a snippet printing one of these did not work.
BOND_REFUSALS = re.compile(
    r"\"status\":\s*\"(rate_limited|unauthorized|no_subscription|payment_issue|bad_request|error)\""
    r"|x-ponte-status:\s*(rate_limited|unauthorized|no_subscription|payment_issue|bad_request|error)",
    re.IGNORECASE,
)

# Commands that would change the machine running the test (a production host's set-up). An unmarked
# block using one fails without being run: it needs a not-run marker.
UNSAFE = re.compile(
    r"\b(useradd|apt-get|apt|systemctl|sudo|pip install|npm install|git clone|git pull|install -d|rm -r\w*)\b"
    r"|(^|[;&|(]\s*)make\b|\bnginx\b|/etc/",
    re.MULTILINE,
)
