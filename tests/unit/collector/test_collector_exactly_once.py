"""The collector ingests the spool exactly once: killed at any point, it loses no event and stores none twice.

The events of a chunk, the facts they change and the spool cursor are written in one transaction, so there is
no moment between "stored" and "cursor moved" at which a kill could leave them disagreeing.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from unit_support import pending_spool_bytes, stop_collector

from lunavect import paths, store
from lunavect.collector import process as collector
from lunavect.collector.tick import Collector
from lunavect.evidence import spool

EVENT_CYCLE = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


class SpoolWriter:
    """Writes spool lines in the real shim's format, each with a unique id, and remembers what it wrote."""

    def __init__(self, spool_path: Path, sessions: int = 40) -> None:
        self.path = spool_path
        self.sessions = sessions
        self.ids: list[str] = []
        self.rejected = 0
        self.malformed = 0
        self.lines: list[bytes] = []
        self.n = 0
        self.t0 = 1_790_000_000.0

    def line(self, *, session: int | None = None, kind: str | None = None) -> bytes:
        i = self.n
        self.n += 1
        forced = session is not None or kind is not None
        if i % 97 == 13 and not forced:
            self.rejected += 1
            record = {"v": 1, "id": f"r{i:023x}", "client": "claude", "t": self.t0 + i / 1000, "rejected": "not-json"}
        elif i % 211 == 17 and not forced:
            self.malformed += 1
            return b'{"event": "Stop", "session": "cut off\n'
        else:
            session = i % self.sessions if session is None else session
            kind = kind or EVENT_CYCLE[(i // self.sessions) % len(EVENT_CYCLE)]
            record = {
                "event": kind,
                "session": f"sess-{session:04d}-0000-4000-8000-000000000000",
                "cwd": f"/home/u/projects/p{session}",
                "transcript": f"/home/u/.claude/projects/-home-u-projects-p{session}/sess-{session:04d}.jsonl",
                "mode": "default",
                "v": 1,
                "id": f"{i:024x}",
                "client": "claude",
                "t": round(self.t0 + i / 1000, 6),
            }
            if kind == "PreToolUse":
                record.update(tool="Bash", tool_use_id=f"toolu_{i}")
            self.ids.append(record["id"])
        return (json.dumps(record, separators=(",", ":")) + "\n").encode()

    def write(self, lines: list[bytes]) -> None:
        """Append with O_APPEND, as the shim does (one write per batch)."""
        self.lines.extend(lines)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, b"".join(lines))
        finally:
            os.close(fd)

    def write_n(self, n: int) -> None:
        self.write([self.line() for _ in range(n)])

    def close_every_session(self) -> None:
        """End each session with a Stop, so its final state is known: ready."""
        self.write([self.line(session=s, kind="Stop") for s in range(self.sessions)])


def _count(db: Path) -> int:
    """How many events the store holds, read without taking part in the collector's writes."""
    if not db.exists():
        return 0  # never create it here: the collector creates it, private
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


RUNNER = textwrap.dedent(
    """
    # `python -m lunavect daemon` with smaller reads (many short transactions to kill in between) and a small
    # rotation size (so rotation happens while it is killed). Retirement is kept out of the way: its counters
    # are not idempotent by design (a crash between dropping a cursor and deleting the file re-reads the file).
    import os, runpy, sys
    from lunavect.evidence import spool
    _read_new = spool.read_new
    _max = int(os.environ["LV_TEST_MAX_READ"])
    spool.read_new = lambda conn, path, max_bytes=_max: _read_new(conn, path, max_bytes)
    spool.ROTATE_BYTES = int(os.environ["LV_TEST_ROTATE"])
    spool.RETIRE_AFTER_S = 1e9
    sys.argv = ["lunavect", "daemon", "--quiet"]
    runpy.run_module("lunavect", run_name="__main__", alter_sys=True)
    """
)


@pytest.mark.process
def test_sigkill_at_random_moments_loses_nothing_and_stores_nothing_twice(iso_env):
    seed = int(os.environ.get("LV_TEST_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    print(f"seed {seed}")
    db = paths.store_path()
    writer = SpoolWriter(paths.spool_dir() / spool.SPOOL_FILE_NAME)
    writer.write_n(25_000)

    runner = iso_env.root / "lunavect_daemon_runner.py"
    runner.write_text(RUNNER)
    env = dict(iso_env.env, LV_TEST_MAX_READ=str(32 * 1024), LV_TEST_ROTATE=str(256 * 1024))

    # Shims keep appending while the collector is killed and restarted.
    stop_writing = threading.Event()

    def keep_writing() -> None:
        while not stop_writing.wait(rng.uniform(0.005, 0.03)):
            writer.write_n(rng.randint(1, 60))

    background = threading.Thread(target=keep_writing, daemon=True)
    background.start()
    kills_mid_ingest = 0
    try:
        for attempt in range(10):
            before = _count(db)
            proc = subprocess.Popen(
                [sys.executable, str(runner)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            try:
                if attempt % 3 == 0:
                    time.sleep(rng.uniform(0.0, 0.8))  # anywhere: start-up, migration, first chunks
                else:
                    # A random number of further events, at most those written so far.
                    target = min(before + rng.randint(200, 6000), len(writer.ids))
                    deadline = time.monotonic() + 15
                    while _count(db) < target and proc.poll() is None and time.monotonic() < deadline:
                        time.sleep(0.001)
                assert proc.poll() is None, proc.stderr.read().decode()
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                proc.stderr.close()
            after = _count(db)
            if before < after < len(writer.ids):
                kills_mid_ingest += 1
    finally:
        stop_writing.set()
        background.join()
    writer.close_every_session()
    assert kills_mid_ingest >= 4, f"too few kills landed mid-ingest (seed {seed})"

    # Finally the plain collector, left to finish.
    proc = subprocess.Popen(
        [sys.executable, "-m", "lunavect", "daemon", "--quiet"],
        env=iso_env.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        conn = store.connect()
        # A bound on how long the rest may take, not a measure of it: on a loaded machine (two cores shared by
        # load 10 and more) the collector took over a minute to store the last of its 90,000 events.
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if _count(db) >= len(writer.ids) and pending_spool_bytes(conn, paths.spool_dir()) == 0:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()
        while time.monotonic() < deadline:  # the tick's snapshot follows its ingest
            states = dict(conn.execute("SELECT id, state FROM snapshot"))
            if len(states) == writer.sessions and set(states.values()) == {"ready"}:
                break
            time.sleep(0.05)
    finally:
        stop_collector(iso_env.data)
        proc.wait(timeout=10)
        proc.stderr.close()

    total, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT event_id) FROM events").fetchone()
    stored = {row[0] for row in conn.execute("SELECT event_id FROM events")}
    assert total == distinct == len(writer.ids), f"seed {seed}"
    assert stored == set(writer.ids), f"seed {seed}"
    assert pending_spool_bytes(conn, paths.spool_dir()) == 0
    counters = store.counters(conn)
    # Rejections and malformed lines are counted by the collector: exactly once each, too.
    assert counters.get("hook.rejected.not-json") == writer.rejected, f"seed {seed}"
    assert counters.get("spool.malformed") == writer.malformed, f"seed {seed}"
    rotated = [p for p in paths.spool_dir().iterdir() if p.name.startswith(spool.ROTATED_PREFIX)]
    assert rotated, "rotation never happened while the collector was being killed"

    # The folded facts are those of one uninterrupted ingest of the same lines in the same order.
    reference_dir = iso_env.root / "reference"
    (reference_dir / "spool").mkdir(parents=True)
    (reference_dir / "spool" / spool.SPOOL_FILE_NAME).write_bytes(b"".join(writer.lines))
    ref = store.connect(reference_dir / paths.STORE_FILE_NAME)
    Collector(ref, reference_dir / "spool").ingest()
    facts = dict(conn.execute("SELECT id, data FROM facts"))
    assert facts == dict(ref.execute("SELECT id, data FROM facts"))
    assert len(facts) == writer.sessions
    states = dict(conn.execute("SELECT id, state FROM snapshot"))
    assert set(states.values()) == {"ready"}
    assert len(states) == writer.sessions
    ref.close()
    conn.close()


# ---------------------------------------------------------------------------------------------------------
# In-process: the collector's ingest, one case at a time.


@pytest.fixture
def col(iso_env):
    conn = iso_env.connect()
    return Collector(conn)


def ev(i: int, kind: str = "UserPromptSubmit", session: str = "s1", t: float | None = None, **extra) -> bytes:
    record = {
        "event": kind,
        "session": session,
        "v": 1,
        "id": f"id-{i}",
        "client": "claude",
        "t": 1_790_000_000.0 + i if t is None else t,
        **extra,
    }
    return (json.dumps(record) + "\n").encode()


def append(raw: bytes) -> None:
    path = paths.spool_dir() / spool.SPOOL_FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as f:
        f.write(raw)


def event_ids(conn) -> list[str]:
    return [r[0] for r in conn.execute("SELECT event_id FROM events ORDER BY seq")]


def test_nothing_to_ingest(col):
    assert col.ingest() == 0
    col.tick()
    assert col.conn.execute("SELECT COUNT(*) FROM snapshot").fetchone()[0] == 0


def test_partial_last_line_waits_until_complete(col):
    whole = ev(3, "Stop")
    append(ev(1) + ev(2, "PreToolUse", tool="Bash") + whole[:17])
    assert col.ingest() == 2
    assert event_ids(col.conn) == ["id-1", "id-2"]
    assert col.ingest() == 0
    append(whole[17:-1])  # still no newline
    assert col.ingest() == 0
    append(b"\n")
    assert col.ingest() == 1
    assert event_ids(col.conn) == ["id-1", "id-2", "id-3"]
    assert store.counters(col.conn) == {}


def test_malformed_lines_are_counted_and_do_not_block(col):
    append(b"garbage that is not json\n")
    append(b"[1, 2]\n")
    append(b"\n   \n")
    append(b'{"event": "Stop", "v": 1, "id": "no-session", "client": "claude", "t": 1.0}\n')
    append(b'{"event": "Stop", "session": "s1", "v": 1, "client": "claude", "t": 1.0}\n')  # no id
    append(b'{"v": 1, "id": "r1", "client": "claude", "t": 1.0, "rejected": "empty"}\n')
    append(b'{"v": 1, "id": "r2", "client": "claude", "t": 1.0, "rejected": "empty"}\n')
    append(b"\xff\xfe not utf-8\n")
    append(ev(1) + ev(2, "Stop"))
    assert col.ingest() == 2
    assert event_ids(col.conn) == ["id-1", "id-2"]
    assert store.counters(col.conn) == {"spool.malformed": 3, "spool.unusable": 2, "hook.rejected.empty": 2}
    col.tick()
    assert col.conn.execute("SELECT state FROM snapshot").fetchall() == [("ready",)]


def test_replayed_spool_stores_nothing_twice(col, iso_env):
    append(b"".join(ev(i, EVENT_CYCLE[i % 4]) for i in range(200)))
    assert col.ingest() == 200
    col.tick()
    facts = dict(col.conn.execute("SELECT id, data FROM facts"))
    snapshot = dict(col.conn.execute("SELECT id, data FROM snapshot"))
    # The cursor is lost (a crash of a future version, a restored backup): everything is read again.
    col.conn.execute("DELETE FROM spool_cursor")
    again = Collector(col.conn)
    assert again.ingest() == 0
    again.tick()
    assert col.conn.execute("SELECT COUNT(*), COUNT(DISTINCT event_id) FROM events").fetchone() == (200, 200)
    assert dict(col.conn.execute("SELECT id, data FROM facts")) == facts
    assert dict(col.conn.execute("SELECT id, data FROM snapshot")) == snapshot
    # The same Collector replaying (no restart) agrees.
    col.conn.execute("DELETE FROM spool_cursor")
    assert col.ingest() == 0


def test_truncated_spool_is_read_again_without_duplicates(col):
    append(ev(1) + ev(2))
    assert col.ingest() == 2
    path = paths.spool_dir() / spool.SPOOL_FILE_NAME
    path.write_bytes(ev(3))  # truncated by hand and rewritten shorter: same inode, smaller size
    assert col.ingest() == 1
    assert event_ids(col.conn) == ["id-1", "id-2", "id-3"]


def test_failure_mid_chunk_rolls_back_events_facts_and_cursor(col, monkeypatch):
    """The in-process counterpart of a kill inside the transaction: nothing of the chunk is kept."""
    append(b"".join(ev(i, EVENT_CYCLE[i % 4], session=f"s{i % 3}") for i in range(60)))
    import lunavect.collector.tick as module

    real_fold = module.fold
    calls = {"n": 0}

    def failing_fold(facts, evidence):
        calls["n"] += 1
        if calls["n"] == 40:
            raise KeyboardInterrupt  # as abrupt as Python gets
        return real_fold(facts, evidence)

    monkeypatch.setattr(module, "fold", failing_fold)
    with pytest.raises(KeyboardInterrupt):
        col.ingest()
    assert col.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    assert col.conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0] == 0
    assert col.conn.execute("SELECT COUNT(*) FROM spool_cursor").fetchone()[0] == 0
    assert col._facts == {}
    monkeypatch.setattr(module, "fold", real_fold)
    assert col.ingest() == 60
    assert col.ingest() == 0
    assert col.conn.execute("SELECT COUNT(DISTINCT event_id), COUNT(*) FROM events").fetchone() == (60, 60)


def test_several_chunks_per_ingest(col, monkeypatch):
    real = spool.read_new
    monkeypatch.setattr(spool, "read_new", lambda conn, path, max_bytes=500: real(conn, path, max_bytes))
    append(b"".join(ev(i) for i in range(100)))
    assert col.ingest() == 100
    assert col.ingest() == 0


def test_a_line_longer_than_a_read_is_skipped_not_stalled(col, monkeypatch):
    real = spool.read_new
    monkeypatch.setattr(spool, "read_new", lambda conn, path, max_bytes=300: real(conn, path, max_bytes))
    append(b'{"junk": "' + b"x" * 1000 + b'"}\n' + ev(1) + ev(2))
    for _ in range(10):
        col.ingest()
    assert event_ids(col.conn) == ["id-1", "id-2"]


def test_rotation_and_retirement(col, monkeypatch):
    monkeypatch.setattr(spool, "ROTATE_BYTES", 1000)
    monkeypatch.setattr(spool, "RETIRE_AFTER_S", 30.0)
    spool_dir = paths.spool_dir()
    live = spool_dir / spool.SPOOL_FILE_NAME
    append(b"".join(ev(i) for i in range(20)))  # > 1000 bytes
    first_inode = live.stat().st_ino
    now = time.time()
    assert col.ingest(now=now) == 20
    # Fully read and large: moved aside, not yet deleted.
    rotated = sorted(p for p in spool_dir.iterdir() if p.name.startswith(spool.ROTATED_PREFIX))
    assert len(rotated) == 1 and not live.exists()
    assert rotated[0].stat().st_ino == first_inode
    # A shim that opened the file before the rename still appends to it: that line is read too.
    with open(rotated[0], "ab") as f:
        f.write(ev(20))
    # New events go to a new live file.
    append(ev(21) + ev(22))
    assert col.ingest(now=now + 1) == 3
    assert pending_spool_bytes(col.conn, spool_dir) == 0
    assert rotated[0].exists()  # touched just now: a shim might still hold it
    # Untouched for longer than RETIRE_AFTER_S: deleted, with its cursor row.
    assert col.ingest(now=time.time() + 31) == 0
    assert not rotated[0].exists()
    cursors = [r[0] for r in col.conn.execute("SELECT inode FROM spool_cursor")]
    assert first_inode not in cursors
    assert live.exists() and live.stat().st_ino in cursors
    assert col.conn.execute("SELECT COUNT(*), COUNT(DISTINCT event_id) FROM events").fetchone() == (23, 23)


def test_a_rotated_file_not_fully_read_is_kept(col, monkeypatch):
    monkeypatch.setattr(spool, "ROTATE_BYTES", 100)
    monkeypatch.setattr(spool, "RETIRE_AFTER_S", 30.0)
    spool_dir = paths.spool_dir()
    append(ev(1) + ev(2))
    assert col.ingest(now=time.time()) == 2
    (rotated,) = [p for p in spool_dir.iterdir() if p.name.startswith(spool.ROTATED_PREFIX)]
    with open(rotated, "ab") as f:
        f.write(ev(3)[:10])  # a late, partial line: the file is not fully read
    col.ingest(now=time.time() + 100)
    assert rotated.exists()
    with open(rotated, "ab") as f:
        f.write(ev(3)[10:])
    assert col.ingest(now=time.time() + 100) == 1
    assert not rotated.exists()


def test_rotated_files_are_read_oldest_first(col, iso_env):
    spool_dir = paths.spool_dir()
    spool_dir.mkdir(parents=True)
    (spool_dir / f"{spool.ROTATED_PREFIX}{1000.0:017.6f}-1.jsonl").write_bytes(ev(1, "UserPromptSubmit", t=1.0))
    (spool_dir / f"{spool.ROTATED_PREFIX}{2000.0:017.6f}-2.jsonl").write_bytes(ev(2, "PreToolUse", t=2.0, tool="Bash"))
    (spool_dir / spool.SPOOL_FILE_NAME).write_bytes(ev(3, "Stop", t=3.0))
    (spool_dir / "poke").write_text("123")
    (spool_dir / "unrelated.txt").write_text("not a spool")
    assert col.ingest() == 3
    assert event_ids(col.conn) == ["id-1", "id-2", "id-3"]


def test_collector_restart_keeps_facts(col, iso_env):
    append(ev(1, "UserPromptSubmit", t=100.0) + ev(2, "PreToolUse", t=101.0, tool="Bash", tool_use_id="tu1"))
    col.tick(now=102.0)
    restarted = Collector(iso_env.connect())
    append(ev(3, "PostToolUse", t=103.0, tool="Bash", tool_use_id="tu1"))
    restarted.tick(now=104.0)
    data = json.loads(restarted.conn.execute("SELECT data FROM snapshot").fetchone()[0])
    assert data["state"] == "working" and data["activity"] == "thinking"
    assert data["since"].startswith("1970-01-01T00:01:40")  # the prompt's time, not the restart's


# ---------------------------------------------------------------------------------------------------------
# The collector as a process: started on demand, one per machine, and caught up before front ends read.


@pytest.mark.process
def test_wait_caught_up_after_list_started_a_collector(iso_env):
    proc = iso_env.cli_process("list", "--json")  # a real front end process starts the collector
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
    assert collector.is_running()
    pid = collector.collector_pid()
    assert pid and Path(f"/proc/{pid}").exists()

    assert iso_env.hook({"hook_event_name": "UserPromptSubmit", "session_id": "s-live", "prompt": "x"}).returncode == 0
    conn = iso_env.connect()
    assert collector.wait_caught_up(conn) is True
    (state,) = conn.execute("SELECT state FROM snapshot WHERE id = 'claude:s-live'").fetchone()
    assert state == "working"
    # A second front end does not start a second collector.
    assert iso_env.cli("list").returncode == 0
    assert collector.collector_pid() == pid


def test_wait_caught_up_without_a_collector_times_out(iso_env):
    conn = iso_env.connect()
    started = time.monotonic()
    assert collector.wait_caught_up(conn, timeout=0.3) is False
    assert time.monotonic() - started < 2


def test_a_front_end_looks_again_soon_then_every_ten_milliseconds():
    # A collector at rest answers a poke in about 2 ms: the first looks come after 1, 2 and 4 ms, not 10 (a tenth
    # of `lunavect usage`'s run); a busy one is looked at no more often than every 10 ms.
    pauses = list(itertools.islice(collector.catch_up_pauses(), 8))
    assert pauses[:3] == [0.001, 0.002, 0.004]
    assert sum(pauses[:3]) < 0.01 and max(pauses) == 0.01 == pauses[-1]


@pytest.mark.process
def test_ensure_running_starts_one_collector(iso_env):
    assert collector.is_running() is False
    assert collector.ensure_running() is True
    pid = collector.collector_pid()
    assert collector.ensure_running() is True
    assert collector.collector_pid() == pid
    # A second daemon exits at once: one collector per machine.
    proc = subprocess.run(
        [sys.executable, "-m", "lunavect", "daemon", "--quiet"], env=iso_env.env, capture_output=True, timeout=20
    )
    assert proc.returncode == 0
    assert collector.collector_pid() == pid


@pytest.mark.process
def test_collector_stops_when_its_data_folder_is_deleted(iso_env):
    import shutil

    assert collector.ensure_running() is True
    pid = collector.collector_pid()
    shutil.rmtree(iso_env.data)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                break
        except ChildProcessError:
            if not Path(f"/proc/{pid}").exists():
                break
        time.sleep(0.05)
    else:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except OSError:
            state = "gone"
        pytest.fail(f"the collector outlived its data folder (state {state}, data exists: {iso_env.data.exists()})")
