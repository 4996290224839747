"""A full disk loses only the event that met it: the next one, once there is space again, is stored.

On a real 1 MB tmpfs (needs root to mount; skipped otherwise) and with a real file-size limit (any user), the
real shim and the real HTTP hook listener write an event the disk cuts short, then one more after space
returns; the collector then reads the spool. The fault stays silent: exit 0, nothing printed, no wait.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from unit_support import Iso

from lunavect import store
from lunavect.collector.tick import Collector
from lunavect.listener.server import HOOK_PATH, HookListener

SESSION = "3fd75c2e-f60a-47a1-9b70-087f2037adbf"
PAGE = os.sysconf("SC_PAGE_SIZE")
SECRET = "s" * 64


def event(name: str) -> dict:
    return {
        "hook_event_name": name,
        "session_id": SESSION,
        "cwd": "/home/u/" + "p" * 300,  # a record longer than the room left in the spool's last page
        "transcript_path": "/home/u/t.jsonl",
        "prompt": "private text",
    }


def run_hook(iso: Iso, name: str, env: dict[str, str], **kwargs) -> None:
    proc = iso.hook(event(name), env=env, timeout=10, **kwargs)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def stored(spool_dir: Path, store_path: Path) -> tuple[list[str], dict[str, int]]:
    """The events the real collector takes from the spool, and its counters."""
    conn = store.connect(store_path)
    try:
        Collector(conn, spool_dir).ingest()
        kinds = [row[0] for row in conn.execute("SELECT kind FROM events ORDER BY seq")]
        return kinds, store.counters(conn)
    finally:
        conn.close()


def leave_room(spool: Path, room: int) -> None:
    """Pad the spool with a blank line (which the reader skips) so its last page has `room` bytes left."""
    size = spool.stat().st_size
    with spool.open("ab") as f:
        f.write(b" " * (PAGE - size % PAGE - room - 1) + b"\n")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB tmpfs, mounted for this test and unmounted after it."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the file-size-limit test covers a short write without it)")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


class Filler:
    """Takes every free page of the disk, and gives them back."""

    def __init__(self, disk: Path) -> None:
        self.path = disk / "filler"

    def __enter__(self) -> Filler:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"x" * PAGE)
        except OSError:
            pass
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        self.path.unlink()


@pytest.mark.process
def test_the_shim_on_a_full_tmpfs_loses_only_the_event_that_met_it(iso_env, small_disk, tmp_path):
    env = dict(iso_env.env, LUNAVECT_HOME=str(small_disk / "lunavect"))
    spool = small_disk / "lunavect" / "spool" / "events.jsonl"
    run_hook(iso_env, "SessionStart", env)
    leave_room(spool, 60)
    with Filler(small_disk):
        before = spool.stat().st_size
        run_hook(iso_env, "UserPromptSubmit", env)  # cut short at the page's end
        assert spool.stat().st_size > before  # the disk did take a piece of it
    run_hook(iso_env, "Stop", env)
    assert stored(spool.parent, tmp_path / "store.sqlite") == (["SessionStart", "Stop"], {})


@pytest.mark.process
def test_the_http_listener_on_a_full_tmpfs_loses_only_the_event_that_met_it(small_disk, tmp_path):
    spool = small_disk / "lunavect" / "spool" / "events.jsonl"
    server = HookListener(str(spool), SECRET, deadline_s=5.0).start()
    try:
        post(server, "SessionStart")
        wait_until(lambda: spool.exists())
        leave_room(spool, 60)
        with Filler(small_disk):
            before = spool.stat().st_size
            post(server, "UserPromptSubmit")
            wait_until(lambda: spool.stat().st_size > before)
        post(server, "Stop")
        wait_until(lambda: b'"Stop"' in spool.read_bytes())
    finally:
        server.close()
    assert stored(spool.parent, tmp_path / "store.sqlite") == (["SessionStart", "Stop"], {})


@pytest.mark.process
def test_a_write_cut_short_by_the_file_size_limit_loses_only_its_own_event(iso_env):
    """RLIMIT_FSIZE cuts a write short on any file system, without root: a real short write(2)."""
    run_hook(iso_env, "SessionStart", iso_env.env)
    limit = iso_env.spool.stat().st_size + 90

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run_hook(iso_env, "UserPromptSubmit", iso_env.env, preexec_fn=limited)
    assert iso_env.spool.stat().st_size == limit  # the limit took 90 bytes of it
    run_hook(iso_env, "Stop", iso_env.env)
    assert stored(iso_env.spool_dir, iso_env.root / "store.sqlite") == (["SessionStart", "Stop"], {})
    assert "private text" not in iso_env.spool.read_text()


def post(server: HookListener, name: str) -> None:
    body = json.dumps(event(name)).encode()
    head = (
        f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Lunavect-Secret: {SECRET}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head.encode() + body)
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(64).startswith(b"HTTP/1.1 200")


def wait_until(done: Callable[[], bool]) -> None:
    """The listener appends after it answered: wait until the spool shows the append."""
    deadline = time.monotonic() + 10
    while not done():
        assert time.monotonic() < deadline, "the listener did not append"
        time.sleep(0.02)
