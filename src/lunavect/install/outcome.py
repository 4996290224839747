"""What `hooks install` and `hooks uninstall` print of one client: the line of each outcome, and a refusal.

Every client's face words them alike (`<client>: installed in <file>`), so they are worded once here; an
installer's error (a malformed file, a folder it may not write) becomes `HooksRefused` with the one line the
command prints, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from lunavect.install.hooks_file import HooksRefused

T = TypeVar("T")


@contextmanager
def refusing(prefix: str, *errors: type[Exception]) -> Iterator[None]:
    """An installer's `errors` (and any OSError) as `HooksRefused`, the error's line after `prefix` (the
    client's `<id>: `, or nothing where the error names the file already)."""
    caught: tuple[type[Exception], ...] = (OSError, *errors)
    try:
        yield
    except caught as exc:
        raise HooksRefused(f"{prefix}{exc}") from None


def installed(client_id: str, changed: bool, path: Path) -> str:
    return f"{client_id}: {'installed' if changed else 'already installed'} in {path}"


def removed(client_id: str, changed: bool, path: Path) -> str:
    return f"{client_id}: {'removed' if changed else 'nothing to remove'} in {path}"


def install_lines(
    client_id: str, install: Callable[[], T], describe: Callable[[T], str], *errors: type[Exception]
) -> list[str]:
    """What `hooks install` prints of a client whose installer `install` answers with what `describe` words."""
    with refusing(f"{client_id}: ", *errors):
        result = install()
    return [describe(result)]


def uninstall_lines(client_id: str, uninstall: Callable[[], bool], path: Path, *errors: type[Exception]) -> list[str]:
    """What `hooks uninstall` prints of a client whose `uninstall` takes its hooks out of the file at `path`."""
    with refusing(f"{client_id}: ", *errors):
        changed = uninstall()
    return [removed(client_id, changed, path)]
