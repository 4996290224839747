"""The documentation site builds with `--strict` (a broken link, a missing page or anchor, a page left out of the
navigation fails), and its command reference is generated from the command line itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed")

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly_with_every_command_in_its_reference(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    from lunavect.cli.root import cli

    for name in cli.list_commands(None):  # type: ignore[arg-type]
        assert f"lunavect {name}" in reference, name


def test_every_page_is_in_the_navigation():
    import yaml  # mkdocs's own dependency

    def pages(nav: object) -> set[str]:
        if isinstance(nav, str):
            return {nav}
        if isinstance(nav, list):
            return set().union(*(pages(item) for item in nav))
        if isinstance(nav, dict):
            return set().union(*(pages(value) for value in nav.values()))
        return set()

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert pages(config["nav"]) == {p.name for p in (ROOT / "docs").glob("*.md")}
