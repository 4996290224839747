"""The documentation as the tests hold it to the code: the README (the short front page) and the site's pages
under docs/, where the reference (the JSON contract, the exit codes, the bars' blocks, the clients' table, the
NATS permissions) lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    """One page of the site (`docs/<name>`), or the README for "README.md"."""
    path = ROOT / name if name == "README.md" else DOCS / name
    return path.read_text(encoding="utf-8")


def documentation() -> str:
    """The README and every page of the site, one after the other: for a fact that must be written somewhere."""
    return "\n\n".join(page(p.name) for p in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))])
