"""A real collector (`python -m lunavect daemon`) in a bench's isolated home: started, waited for and
stopped the same way by every bench that measures from a hook event to its effect, so that their figures
can be read side by side.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator


def spawn_collector(env: dict[str, str]) -> subprocess.Popen:
    """`python -m lunavect daemon --quiet` in `env`, in its own session, logging beside its store."""
    os.makedirs(env["LUNAVECT_HOME"], exist_ok=True)
    log = open(os.path.join(env["LUNAVECT_HOME"], "bench-collector.log"), "ab")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "lunavect", "daemon", "--quiet"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    log.close()
    return proc


def start_collector(env: dict[str, str]) -> subprocess.Popen:
    """A collector in this process's (isolated) home, once it has begun its first tick: a round measured
    before then would time the collector's start."""
    from lunavect import paths
    from lunavect.collector import process as collector

    proc = spawn_collector(env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the collector exited with {proc.returncode}; see its log")
        if collector.is_running() and collector.collector_pid() == proc.pid and paths.store_path().exists():
            # Plain reads: store.connect() would race the collector's first migration.
            conn = sqlite3.connect(paths.store_path(), timeout=5)
            try:
                if conn.execute("SELECT 1 FROM collector WHERE key = 'tick_started'").fetchone():
                    return proc
            except sqlite3.OperationalError:
                pass  # not migrated yet
            finally:
                conn.close()
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("the collector did not start within 20 s")


def stop_collectors(proc: subprocess.Popen | None) -> None:
    """Stop the collector we started, and one that a `lunavect list` of ours may have started instead."""
    from lunavect.collector import process as collector

    other = collector.collector_pid()
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if other and (proc is None or other != proc.pid):
        try:
            with open(f"/proc/{other}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ")
            with open(f"/proc/{other}/environ", "rb") as f:
                ours = f"LUNAVECT_HOME={os.environ['LUNAVECT_HOME']}".encode() in f.read().split(b"\0")
            if b"lunavect" in cmdline and b"daemon" in cmdline and ours:
                os.kill(other, signal.SIGTERM)
        except OSError:
            pass


@contextlib.contextmanager
def running_collector(env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """start_collector, and stop_collectors however the rounds end; the pause lets the collector's last
    writes land before the home is deleted."""
    proc = None
    try:
        proc = start_collector(env)
        yield proc
    finally:
        stop_collectors(proc)
        time.sleep(0.2)
