"""A release's pieces agree before a tag is pushed: the version in the package, its dated section in the
changelog, the man pages' header, and the release workflow that checks the same (RELEASING.md)."""

from __future__ import annotations

import re
from pathlib import Path

import lunavect

ROOT = Path(__file__).resolve().parents[2]


def test_the_changelog_has_a_dated_section_for_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(lunavect.__version__)} - \d{{4}}-\d{{2}}-\d{{2}}", headings[1]), headings[:3]
    assert len(set(headings)) == len(headings)


def test_the_man_pages_carry_the_version_and_its_date():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    date = re.search(rf"^## {re.escape(lunavect.__version__)} - (\S+)$", text, re.M).group(1)
    header = (ROOT / "man" / "man1" / "lunavect.1").read_text().splitlines()[0]
    assert header == f'.TH "LUNAVECT" "1" "{date}" "{lunavect.__version__}" "lunavect Manual"'


def test_the_workflow_publishes_by_trusted_publishing_what_releasing_md_says():
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    steps = (ROOT / "RELEASING.md").read_text()
    assert "id-token: write" in workflow and "pypa/gh-action-pypi-publish" in workflow
    assert "password:" not in workflow  # no token: PyPI trusts the workflow
    for command in ("python -m build", "twine check --strict dist/*", "pytest -q tests/packaging"):
        assert command in workflow and command in steps, command
    assert (ROOT / "SECURITY.md").is_file() and "Report a vulnerability" in (ROOT / "SECURITY.md").read_text()
