"""CHANGELOG.md in Keep a Changelog form, its entries classed as seed 002 announces changes, and the
OpenAPI document's version is a release with notes there (core.changelog)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from core.changelog import CLASSES, current_version, released_versions

CHANGELOG = settings.BASE_DIR / "CHANGELOG.md"
SECTION = re.compile(r"^## (.+)$", re.MULTILINE)


def _sections() -> dict[str, str]:
    """`## ...` heading → its text, in the file's order."""
    text = CHANGELOG.read_text(encoding="utf-8")
    parts = SECTION.split(text)[1:]
    return dict(zip(parts[::2], parts[1::2], strict=True))


def test_the_openapi_version_is_the_newest_release_and_has_entries() -> None:
    version = SchemaGenerator().get_schema(request=None, public=True)["info"]["version"]
    assert version == current_version(CHANGELOG)
    (notes,) = [text for heading, text in _sections().items() if heading.startswith(f"[{version}] - ")]
    assert re.search(r"^- \S", notes, re.MULTILINE), f"{version} has no entries"


def test_unreleased_comes_first_then_releases_newest_first_with_dates() -> None:
    headings = list(_sections())
    assert headings[0] == "[Unreleased]"
    for heading in headings[1:]:
        assert re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", heading), heading
    versions = released_versions(CHANGELOG.read_text(encoding="utf-8"))
    keys = [tuple(int(part) for part in version.split(".")) for version in versions]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    dates = [heading.split(" - ")[1] for heading in headings[1:]]
    assert dates == sorted(dates, reverse=True)


def test_every_entry_is_classed_added_fixed_changed_or_needs_attention() -> None:
    for heading, text in _sections().items():
        classes = re.findall(r"^### (.+)$", text, re.MULTILINE)
        assert set(classes) <= set(CLASSES), (heading, classes)
        assert len(classes) == len(set(classes)), (heading, classes)
        before_first_class = text.split("\n### ", 1)[0]
        assert not re.search(r"^- ", before_first_class, re.MULTILINE), f"{heading}: an entry outside a class"


def test_the_version_is_the_first_release_and_unreleased_work_does_not_count(tmp_path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(
        "## [Unreleased]\n### Added\n- x\n## [2.1.0] - 2026-12-01\n## [2.0.0] - 2026-11-01\n"
    )
    assert current_version(changelog) == "2.1.0"
    changelog.write_text("## [Unreleased]\n### Added\n- x\n")
    with pytest.raises(ValueError, match="no released section"):
        current_version(changelog)
