"""Replacing a file in one rename, so that no reader (a client loading its settings or its plugins) ever sees
it half-written: the text goes to a temporary file beside it, is flushed to disk, given its mode and renamed
over the file; a failure removes the temporary file and leaves the old one as it was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(target: Path, text: str, *, mode: int, prefix: str) -> None:
    """Write `text` as `target` in one rename. The temporary file is `<prefix><random>.tmp` in the same folder (a
    name no client reads: OpenCode loads every `plugin/*.js`)."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
