"""Folders compared as the file system sees them: two spellings of one folder (a symlink, `..`) are one."""

from __future__ import annotations

import os


def resolved(path: str | None) -> str | None:
    """A folder with symlinks and `..` resolved, so two spellings of one folder compare equal; None for none."""
    if not path:
        return None
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None
