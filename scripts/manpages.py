"""Write lunavect's man pages (man/man1/lunavect.1 and one per command, `lunavect-hooks-install.1`) from click's
own help, with click-man, or check that the committed ones match (`--check`, run by tests/packaging).

The pages are committed, not built at packaging time, so that building the wheel imports nothing of lunavect;
the wheel installs them into share/man/man1 (pyproject.toml, data-files), where pipx links them. After changing
a command's help: `.venv/bin/python scripts/manpages.py`.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import click
from click_man.core import write_man_pages

from lunavect import __version__
from lunavect.cli import root

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "man" / "man1"


def release_date() -> str:
    """The date of this version in CHANGELOG.md (so a page changes with the release, not with the day it was
    written), or "unreleased"."""
    found = re.search(
        rf"^## {re.escape(__version__)} - (\d{{4}}-\d{{2}}-\d{{2}})$", (ROOT / "CHANGELOG.md").read_text(), re.M
    )
    return found.group(1) if found else "unreleased"


def write(folder: Path) -> None:
    """Every page into `folder`, from the whole command tree (the group loads its commands lazily)."""
    group = root.cli
    assert isinstance(group, click.Group)
    root.register(group, tuple(name for name in root.COMMAND_MODULES if not _registered(group, name)))
    folder.mkdir(parents=True, exist_ok=True)
    write_man_pages("lunavect", group, version=__version__, target_dir=str(folder), date=release_date())
    for page in folder.glob("*.1"):
        # click's "\b" (keep this paragraph's lines) is for its own help; a man page has no use for it.
        page.write_text(page.read_text().replace("\b\n", "").replace("\b", ""))


def _registered(group: click.Group, module: str) -> bool:
    return any(home == module and name in group.commands for name, home in root.COMMAND_HOMES.items())


def differences() -> list[str]:
    """The pages that differ from what the help says now (missing, changed or left over)."""
    with tempfile.TemporaryDirectory() as made:
        write(Path(made))
        wanted = {page.name: page.read_text() for page in Path(made).glob("*.1")}
    have = {page.name: page.read_text() for page in PAGES.glob("*.1")}
    return sorted(name for name in wanted.keys() | have.keys() if wanted.get(name) != have.get(name))


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        stale = differences()
        if stale:
            print(f"man pages out of date: {', '.join(stale)} (run scripts/manpages.py)", file=sys.stderr)
        return 1 if stale else 0
    for page in PAGES.glob("*.1"):
        page.unlink()
    write(PAGES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
