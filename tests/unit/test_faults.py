"""Faults the person's machine can throw at lunavect (issue 12, "Faults"): a full disk under the spool or the
store, a clock that jumps. Real parts: a small tmpfs mounted for the test (we run as root in CI), the real
hook command, the real store."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest
from unit_support import pending_spool_bytes

from lunavect import store
from lunavect.collector import Collector

SESSION_A = "0a0a0a0a-1111-4222-8333-444455556666"
SESSION_B = "0b0b0b0b-1111-4222-8333-444455556666"
SESSION_C = "0c0c0c0c-1111-4222-8333-444455556666"


def prompt(session: str) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"/nowhere/{session}.jsonl",
        "cwd": "/tmp/project",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hello",
    }


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 16 MiB tmpfs of this test's own, unmounted in teardown."""
    mountpoint = tmp_path / "small-disk"
    mountpoint.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mountpoint)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"mounting a tmpfs was refused (needs root): {proc.stderr.strip()}")
    yield mountpoint
    subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def fill(folder: Path) -> Path:
    """Write a filler file in `folder` until its file system reports ENOSPC for a single byte; returns it."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    finally:
        os.close(fd)
    return filler


def use_data_folder(iso_env, monkeypatch, data: Path) -> None:
    iso_env.data = data
    iso_env.env["LUNAVECT_HOME"] = str(data)
    monkeypatch.setenv("LUNAVECT_HOME", str(data))


def listed_sessions(conn) -> set[str]:
    return {json.loads(data)["session_id"] for (data,) in conn.execute("SELECT data FROM snapshot WHERE listed = 1")}


def test_a_full_disk_under_the_spool_never_hurts_the_agent_and_ingestion_resumes(iso_env, monkeypatch, small_disk):
    use_data_folder(iso_env, monkeypatch, small_disk / "lunavect")
    proc = iso_env.hook(prompt(SESSION_A))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    conn = iso_env.connect()
    collector = Collector(conn)
    collector.tick()
    assert listed_sessions(conn) == {SESSION_A}

    filler = fill(small_disk)
    proc = iso_env.hook(prompt(SESSION_B))  # bounded by the harness's timeout: a shim that blocked fails here
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    collector.tick()  # the collector on a full disk does not lose what it has
    assert listed_sessions(conn) == {SESSION_A}

    filler.unlink()
    proc = iso_env.hook(prompt(SESSION_C))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    collector.tick()
    listed = listed_sessions(conn)
    assert {SESSION_A, SESSION_C} <= listed  # ingestion resumed, nothing stored was lost
    assert listed <= {SESSION_A, SESSION_B, SESSION_C}


def test_a_full_disk_under_the_store_loses_nothing_and_ingestion_resumes(iso_env, small_disk):
    conn = store.connect(small_disk / "store.sqlite3")  # the store on the small disk, the spool beside the home
    try:
        collector = Collector(conn)
        assert iso_env.hook(prompt(SESSION_A)).returncode == 0
        collector.tick()
        assert listed_sessions(conn) == {SESSION_A}

        filler = fill(small_disk)
        for n in range(20):  # more events than the store's last free pages could take
            proc = iso_env.hook(dict(prompt(SESSION_B), prompt=f"event {n}"))
            assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
        for _ in range(3):  # a tick that raised here would end the collector: every front end restarts it
            collector.tick()  # into the same failure, a crash loop
        assert SESSION_A in listed_sessions(conn)  # nothing stored is lost
        events_before = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        assert events_before < 21  # the disk was full to the store: not every event could be stored

        filler.unlink()
        collector.tick()
        assert listed_sessions(conn) == {SESSION_A, SESSION_B}  # ingestion resumed
        stored = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        assert stored == 21  # each spooled event once: none lost, none doubled
        assert pending_spool_bytes(conn, iso_env.spool_dir) == 0
    finally:
        conn.close()
