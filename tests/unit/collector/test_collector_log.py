"""The collector's log stays bounded under a flood of distinct failures, and stderr follows it when it rotates.

A background collector's stdout and stderr are appended to `collector.log` (lunavect/collector/process.py);
the daemon then logs into that same file through lunavect/collector/log.py. The flood runs in a process of its
own, started the way a front end starts the collector, so file descriptor 2 is the log as it is there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lunavect import paths
from lunavect.collector.log import BACKUPS, MAX_BYTES

FLOOD = textwrap.dedent(
    """
    import logging, sqlite3, sys
    from pathlib import Path
    from lunavect import paths
    from lunavect.collector import log as collector_log
    from lunavect.faults import Errors

    collector_log.configure(logging.WARNING, paths.data_dir() / paths.LOG_FILE_NAME)
    errors = Errors(logging.getLogger("lunavect.collector"))
    conn = sqlite3.connect(":memory:")
    for n in range(int(sys.argv[1])):
        try:
            raise ValueError(f"bad file number {n} " + "x" * 300)
        except ValueError as exc:
            errors.note(conn, f"source {n}", exc)  # each one distinct: the rate limit does not hold them back
        if n % 1000 == 0:
            print(f"a library writes to stderr {n}", file=sys.stderr, flush=True)
    print("the last line on stderr", file=sys.stderr, flush=True)
    """
)


def _run_like_a_background_collector(home: Path, count: int) -> None:
    home.mkdir(mode=0o700)
    log_fd = os.open(home / paths.LOG_FILE_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        subprocess.run(
            [sys.executable, "-c", FLOOD, str(count)],
            env=dict(os.environ, LUNAVECT_HOME=str(home)),
            stdout=log_fd,
            stderr=log_fd,
            check=True,
            timeout=120,
        )
    finally:
        os.close(log_fd)


@pytest.mark.process
def test_a_flood_of_distinct_errors_leaves_the_log_folder_bounded(tmp_path: Path) -> None:
    home = tmp_path / "data"
    _run_like_a_background_collector(home, count=12_000)  # several megabytes of tracebacks
    logs = sorted(p.name for p in home.iterdir())
    assert logs == [paths.LOG_FILE_NAME] + [f"{paths.LOG_FILE_NAME}.{n}" for n in range(1, BACKUPS + 1)]
    slack = 4096  # one record may end past the limit
    sizes = [(home / name).stat().st_size for name in logs]
    assert all(size <= MAX_BYTES + slack for size in sizes), sizes
    assert sum(sizes) <= (BACKUPS + 1) * (MAX_BYTES + slack)
    current = (home / paths.LOG_FILE_NAME).read_text()
    assert "the last line on stderr" in current  # stderr moved to the new file with the log, not into a deleted one
    assert "bad file number 11999" in current


@pytest.mark.process
def test_a_collector_in_a_terminal_logs_to_its_stderr(tmp_path: Path) -> None:
    """Run by hand (stderr a terminal or a pipe), the collector writes no log file of its own."""
    home = tmp_path / "data"
    home.mkdir(mode=0o700)
    done = subprocess.run(
        [sys.executable, "-c", FLOOD, "3"],
        env=dict(os.environ, LUNAVECT_HOME=str(home)),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "bad file number 2" in done.stderr
    assert list(home.iterdir()) == []
