"""A person with a long history: every past session is listed before any whole read of a transcript ends, and
a collector at rest touches no finished session's file.

The histories are copies of the real transcripts and rollouts of shared/data, each with a fresh id, dated in
the past: nothing here is synthesised but ids and file times.
"""

from __future__ import annotations

import builtins
import json
import os

import pytest
from history_support import DATA, claude_history, codex_history, tick_until_watched

from lunavect import store
from lunavect.clients.claude import discovery, transcript_read
from lunavect.clients.claude.files_source import ClaudeFilesSource
from lunavect.clients.claude.glance import GLANCED_BYTES, WHOLE_BYTES
from lunavect.clients.codex import history
from lunavect.clients.codex.source import CodexSource
from lunavect.collector.tick import Collector
from lunavect.files import changed as changed_files

pytestmark = pytest.mark.skipif(not (DATA / "claude").is_dir(), reason=f"the shared real files are not at {DATA}")


def listed_rows(conn) -> dict[str, dict]:
    rows = conn.execute("SELECT id, data FROM snapshot WHERE listed = 1").fetchall()
    return {key: json.loads(data) for key, data in rows}


def test_the_cold_list_is_complete_before_any_whole_read_ends(tmp_path, monkeypatch):
    config = tmp_path / "claude"
    sessions = claude_history(config, copies=3)
    large = {str(path) for path in sessions.values() if path.stat().st_size > WHOLE_BYTES}
    assert len(large) >= 6  # the real multi-MB sessions: each is glanced at first, read whole later
    conn = store.connect(tmp_path / "lv" / "store.sqlite3")
    # Whole reads made slow: 256 KB a tick, so a multi-MB transcript takes a dozen ticks.
    source = ClaudeFilesSource(config, budget=256 << 10, processes=dict, one_process=lambda pid: None)
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[source])

    at_first_whole_read: list[dict[str, dict]] = []

    class Watched(transcript_read.AppendedLines):
        def __exit__(self, *exc: object) -> None:
            ended = self._fd is not None and not self.stopped and str(self.path) in large
            super().__exit__(*exc)
            if ended and not at_first_whole_read:
                at_first_whole_read.append(listed_rows(conn))

    monkeypatch.setattr(transcript_read, "AppendedLines", Watched)
    ticks = 0
    while collector.tick() is not None:
        ticks += 1
        assert ticks < 1000
    final = listed_rows(conn)

    assert at_first_whole_read, "no whole read of a large transcript ended"
    first = at_first_whole_read[0]
    assert set(first) == {f"claude:{session}" for session in sessions}  # every session listed already
    assert all(row["title"] and row["project"] for row in first.values())
    # The glance already showed how each session ended: the whole reads changed no state.
    assert {key: row["state"] for key, row in first.items()} == {key: row["state"] for key, row in final.items()}
    source.close()
    conn.close()


def test_an_idle_tick_touches_no_finished_sessions_file(tmp_path, monkeypatch):
    monkeypatch.setattr(changed_files, "READY_CHECK_MS", 100)
    monkeypatch.setattr(discovery, "SWEEP_S", 1e9)  # the slow safety sweep is not due in this test
    monkeypatch.setattr(history, "SWEEP_S", 1e9)
    config, codex_home = tmp_path / "claude", tmp_path / "codex"
    finished = {str(p) for p in claude_history(config, copies=1).values()}
    finished |= {str(p) for p in codex_history(codex_home, copies=4).values()}
    env = {"LUNAVECT_CODEX": str(tmp_path / "no-codex"), "PATH": "/nonexistent", "HOME": str(tmp_path)}
    claude = ClaudeFilesSource(config, processes=dict, one_process=lambda pid: None)
    codex = CodexSource(codex_home=codex_home, env=env)
    conn = store.connect(tmp_path / "lv" / "store.sqlite3")
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[claude, codex])
    while collector.tick() is not None:
        pass
    assert len(listed_rows(conn)) == len(finished)  # every past session listed
    tick_until_watched(collector, [claude._changes, codex.changes])

    touched: list[str] = []

    def counting(call):
        def wrapper(path, *args, **kwargs):
            if isinstance(path, (str, os.PathLike)):
                touched.append(os.fspath(path))
            return call(path, *args, **kwargs)

        return wrapper

    for name in ("stat", "lstat", "open", "scandir", "listdir"):
        monkeypatch.setattr(os, name, counting(getattr(os, name)))
    monkeypatch.setattr(builtins, "open", counting(builtins.open))
    for _ in range(5):
        collector.tick()
    monkeypatch.undo()

    assert touched, "the wrapped calls saw nothing: the test would prove nothing"
    assert not [path for path in touched if path in finished]
    claude.close()
    codex.close()
    conn.close()


def test_a_first_start_says_how_far_its_reading_of_the_history_got(tmp_path, monkeypatch):
    from lunavect.collector import doctor

    config = tmp_path / "claude"
    sessions = claude_history(config, copies=2)
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    conn = store.connect(tmp_path / "lv" / "lunavect.sqlite3")
    source = ClaudeFilesSource(config, budget=256 << 10, processes=dict, one_process=lambda pid: None)
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[source])
    said: list[str] = []
    while collector.tick() is not None:
        said.append(store.collector_values(conn).get("reading", ""))
        assert len(said) < 1000
    total = len(sessions)
    # Every session known at once; none read whole yet but the small ones a glance would read all of.
    small = sum(path.stat().st_size <= GLANCED_BYTES for path in sessions.values())
    assert said and said[0].endswith(f" of {total}") and int(said[0].split(" of ")[0]) <= small
    read = [int(text.split(" of ")[0]) for text in said if text]
    assert read == sorted(read) and read[-1] < total and all(text.endswith(f" of {total}") for text in said if text)
    assert store.collector_values(conn)["reading"] == ""  # at rest: nothing to say
    store.set_collector_value(conn, "reading", said[len(said) // 2])
    lines = doctor.lines(doctor.examine())
    assert f"  reading history: {said[len(said) // 2]}" in lines
    source.close()
    conn.close()
