"""CHANGELOG.md (Keep a Changelog) as the one source of the version: the OpenAPI document's
`info.version` is the newest released section's, so the version a client reads always has notes.

Sections are `## [Unreleased]`, then `## [X.Y.Z] - YYYY-MM-DD`, newest first; entries are classed under
`### Added`, `### Fixed`, `### Changed` and `### Needs attention` (the release notes' classes, with
Changed for what is neither an addition, a fix nor a change that needs attention).
"""

from __future__ import annotations

import re
from pathlib import Path

CLASSES = ("Added", "Fixed", "Changed", "Needs attention")
_RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def released_versions(text: str) -> list[str]:
    """The released versions of a changelog's text, in the file's order (newest first)."""
    return [match["version"] for match in _RELEASE.finditer(text)]


def current_version(path: Path) -> str:
    """The newest released version in the changelog at `path` (ValueError when it has none)."""
    versions = released_versions(path.read_text(encoding="utf-8"))
    if not versions:
        raise ValueError(f"{path} has no released section (## [X.Y.Z] - YYYY-MM-DD)")
    return versions[0]
