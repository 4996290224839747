"""One bad file never stops the list: FIFOs, hostile ids, out-of-range times and wrong types (issue 12, 2–5).

Each test puts one hostile file beside a healthy one and checks that the healthy one is still read, that
nothing raises out of the collector's tick, and that a restart does not bring the failure back.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from claude_files_support import S1, S2, World, prompt, reply
from codex_source_support import A, B, Home, T, call, complete, meta, started

from lunavect import store
from lunavect.clients.claude.catalog import parse_entry, read_catalog
from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.core.ids import is_session_id
from lunavect.core.times import bounded, epoch, iso
from lunavect.evidence.spool_record import decode, evidence
from lunavect.files import quarantine
from lunavect.files.tail import NotRegularFile, open_regular


@pytest.fixture
def world(tmp_path):
    w = World(tmp_path / "claude-world")
    try:
        yield w
    finally:
        w.close()


@pytest.fixture
def home(tmp_path: Path):
    h = Home(tmp_path / "codex-world")
    yield h
    h.close()


def finishes(work, fifos: list[Path], bound_s: float = 20.0) -> bool:
    """Run `work` here; False when a reader blocked in opening one of `fifos` for longer than `bound_s`.

    A watchdog rescues a blocked reader (opening the FIFO for writing lets its open return), so that the old,
    blocking code fails this test instead of hanging it."""
    done = threading.Event()
    rescued: list[Path] = []

    def watch() -> None:
        if done.wait(bound_s):
            return
        while not done.is_set():
            for fifo in fifos:
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    continue  # nobody is reading it
                rescued.append(fifo)
                os.close(fd)
            done.wait(0.05)

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    try:
        work()
    finally:
        done.set()
        watchdog.join()
    return not rescued


# -- 2: a FIFO where a file should be -------------------------------------------------------------------------


def test_open_regular_refuses_a_fifo_at_once(tmp_path):
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        open_regular(fifo)
    with pytest.raises(NotRegularFile):
        open_regular(tmp_path)
    regular = tmp_path / "y.jsonl"
    regular.write_bytes(b"{}\n")
    os.close(open_regular(regular))


def test_a_fifo_named_like_a_rollout_blocks_nothing(home: Home):
    fifo = home.day / f"rollout-2026-11-29T14-38-30-{B}.jsonl"
    os.mkfifo(fifo)
    home.rollout(A, meta(A, T) + started("u1", T + 1) + call("exec_command", "c1", T + 2))
    rows: dict = {}
    assert finishes(lambda: rows.update(home.tick(T + 3)), [fifo])
    assert rows[f"codex:{A}"]["state"] == "working"


def test_a_fifo_in_claude_s_catalog_or_projects_blocks_nothing(world):
    fifos = [world.config / "sessions" / "2.json", world.project / f"{S2}.jsonl"]
    for fifo in fifos:
        os.mkfifo(fifo)
    t = time.time() - 30
    world.transcript(S1, [prompt(t, 1), reply(t + 1, 2)])
    assert finishes(world.tick, fifos)
    assert world.sessions()[S1].state in ("ready", "idle")
    assert finishes(lambda: read_catalog(world.config), fifos)


# -- 3: ids that would build a path ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../../../x", "..", ".hidden", "a/b", "", "x" * 129, "id\x1b]0;t\x07", "id\nrow"])
def test_a_hostile_session_id_is_refused_where_it_enters(bad):
    assert not is_session_id(bad)
    line = json.dumps({"v": 1, "id": "r1", "client": "claude", "t": 1.0, "event": "Stop", "session": bad})
    assert evidence(decode(line.encode())) is None  # the collector counts it unusable and stores nothing
    raw = json.dumps({"pid": 2, "sessionId": bad, "status": "busy", "updatedAt": 1795963210484}).encode()
    assert parse_entry(2, raw) is None


def test_ordinary_ids_are_accepted():
    for good in (S1, A, "s1", "abc_DEF-1.2"):
        assert is_session_id(good)


# -- 4: times out of range ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1e300, -1.0, float("nan"), float("inf"), 10**400, True, "1", None])
def test_bounded_refuses_what_is_no_time(value):
    assert bounded(value) is None
    assert iso(value if isinstance(value, float) else None) is None


def test_epoch_of_extreme_iso_times_is_none():
    assert epoch("9999-12-31T23:59:59+00:00") is None
    assert epoch("0001-01-01T00:00:00-01:00") is None
    assert epoch("2026-11-30T12:00:00Z") == bounded(1796040000.0)


def test_a_rollout_start_of_1e300_kills_nothing_even_after_a_restart(home: Home):
    huge = '{"timestamp":"2026-11-29T00:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1","started_at":1e300}}\n'
    home.rollout(A, meta(A, T) + huge)
    home.rollout(B, meta(B, T) + started("u2", T + 1))
    rows = home.tick(T + 3)
    assert rows[f"codex:{B}"]["state"] == "working"
    home.restart()
    rows = home.tick(T + 4)
    assert f"codex:{B}" in rows


@pytest.mark.process
def test_a_catalog_time_of_1e300_is_no_time(world):
    pid = world.runtime()
    world.catalog(pid, S1, "busy", time.time(), statusUpdatedAt=1e300, updatedAt=1e300)
    world.tick()
    world.tick()  # the stored facts are read back and shown again


def test_a_hook_time_of_1e300_is_unusable(iso_env):
    line = b'{"v":1,"id":"r1","client":"claude","t":1e300,"event":"Stop","session":"s1"}'
    assert evidence(decode(line)) is None


# -- 5: wrong types skip a field or a record, never a reader ----------------------------------------------------


def test_a_list_stop_reason_skips_one_record_and_no_transcript(world):
    t = time.time() - 30
    world.transcript(S1, [prompt(t, 1), reply(t + 1, 2, stop=["end_turn"])])
    world.transcript(S2, [prompt(t, 1, session=S2), reply(t + 1, 2, session=S2)])
    world.tick()
    sessions = world.sessions()
    assert sessions[S2].state in ("ready", "idle")
    assert S1 in sessions


def test_any_exception_in_a_record_makes_it_unreadable_not_fatal():
    line = json.dumps(
        {"type": "assistant", "timestamp": "2026-11-30T12:00:00Z", "message": {"stop_reason": {"a": 1}}}
    ).encode()
    facts = read_record(line)
    assert facts is not None and facts.response == "response"
    with pytest.raises(Unreadable):
        read_record(b'{"type": "assistant", "message": ')


def test_invalid_utf8_in_a_title_keeps_the_record(world):
    t = time.time() - 30
    title = json.dumps({"type": "custom-title", "customTitle": "Caf\udce9", "sessionId": S1}, ensure_ascii=False)
    raw = title.encode("utf-8", "surrogateescape")  # one stray byte 0xE9, as a tool cutting mid-character writes
    path = world.transcript(S1, [prompt(t, 1), reply(t + 1, 2)])
    with open(path, "ab") as f:
        f.write(raw + b"\n")
    world.tick()
    assert world.sessions()[S1].title == "Caf\ufffd"


def test_a_list_catalog_status_leaves_the_entry_without_status(world):
    raw = json.dumps({"pid": 2, "sessionId": S1, "status": ["busy"], "updatedAt": 1795963210484}).encode()
    entry = parse_entry(2, raw)
    assert entry is not None and entry.status is None


def test_codex_lines_of_wrong_types_drop_no_healthy_rollout(home: Home):
    odd = (
        '["user_message"]\n'
        '{"timestamp":"2026-11-29T00:00:02.000Z","type":"response_item","payload":{"type":["function_call"]}}\n'
        '{"timestamp":"2026-11-29T00:00:02.000Z","type":"response_item","payload":{"type":{"a":1}}}\n'
        '{"timestamp":"2026-11-29T00:00:02.000Z","type":"event_msg","payload":{"type":["task_started"]}}\n'
    )
    home.rollout(A, meta(A, T) + started("u1", T + 1) + odd + complete("u1", T + 2))
    home.rollout(B, meta(B, T) + started("u2", T + 1))
    rows = home.tick(T + 3)
    assert rows[f"codex:{B}"]["state"] == "working"
    assert rows[f"codex:{A}"]["state"] in ("ready", "idle")
    home.restart()
    assert f"codex:{B}" in home.tick(T + 4)


def test_a_reader_that_fails_on_one_file_sets_only_it_aside(home: Home, monkeypatch):
    from lunavect.clients.codex import rollout_read as codex_source

    bad = home.rollout(A, meta(A, T) + started("u1", T + 1))
    home.rollout(B, meta(B, T) + started("u2", T + 1))
    real = codex_source.LifecycleCursor.sample

    def sample(self, path):
        if str(path) == str(bad):
            raise RuntimeError("a bug this file triggers")
        return real(self, path)

    monkeypatch.setattr(codex_source.LifecycleCursor, "sample", sample)
    rows = home.tick(T + 3)
    assert rows[f"codex:{B}"]["state"] == "working"
    (entry,) = quarantine.entries(home.conn)
    assert entry.path == str(bad) and entry.source == "codex.rollouts" and "RuntimeError" in entry.error
    monkeypatch.setattr(codex_source.LifecycleCursor, "sample", real)
    with open(bad, "a") as f:  # the file changes: it is tried again, and leaves the quarantine once read
        f.write(complete("u1", T + 4))
    home.tick(T + 5)
    assert quarantine.entries(home.conn) == []
    assert store.counters(home.conn) is not None
