"""The collector's log: rotated, so it stays a few megabytes however long the collector runs.

`faults` bounds how often one failure is logged; this bounds the file itself, since many distinct
failures (one per bad file, say) or a library that writes to stderr would still grow it without end. A
collector started in the background (by a front end, or by launchd) has its stdout and stderr appended to
`collector.log`, so a crash before logging is set up still leaves its traceback there. When stderr is that
file, the log is kept by a `RotatingFileHandler` and stderr follows it to each new file at a rollover: the
old copies are renamed and, beyond `BACKUPS`, deleted, and nothing keeps writing into a renamed or deleted one.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

MAX_BYTES = 1024 * 1024
BACKUPS = 2
LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


class _StderrFollowingHandler(logging.handlers.RotatingFileHandler):
    """A rotating log that moves the process's stderr to each new file along with itself."""

    def doRollover(self) -> None:  # noqa: N802 - the stdlib's name
        super().doRollover()
        if self.stream is not None:
            sys.stderr.flush()
            os.dup2(self.stream.fileno(), 2)


def _stderr_is(path: Path) -> bool:
    """True when file descriptor 2 is `path` itself (same file, not merely the same name)."""
    try:
        fd_stat, path_stat = os.fstat(2), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (fd_stat.st_dev, fd_stat.st_ino) == (path_stat.st_dev, path_stat.st_ino)


def configure(level: int, log_path: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
    """Log at `level`: into the rotated `log_path` when stderr is that file, else to stderr as it is
    (a collector run by hand in a terminal, or under systemd, whose journal bounds itself)."""
    handler: logging.Handler
    if _stderr_is(log_path):
        sys.stderr.flush()
        handler = _StderrFollowingHandler(log_path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    else:
        handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
