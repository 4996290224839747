"""Open or ended, and since when: each row says whether its client's process still runs (`open`) and when the
session last did anything (`last_active`), from the stored facts, with real processes.

A row that rests (ready, idle) is not decided again at each tick; its client may still exit without a word (a
kill leaves no SessionEnd), so a row that says open has its process asked again at each snapshot, and rests
for good once it says ended."""

from __future__ import annotations

import json
import subprocess

import msgspec
import psutil
import pytest
from unit_support import Feed, sleeping_process

from lunavect import store
from lunavect.collector.tick import Collector
from lunavect.core.model import Evidence
from lunavect.core.times import epoch

NOW = 2_000_000_000.0


@pytest.fixture
def client():
    """A real process standing in for the client: its pid and start time are what a hook records."""
    with sleeping_process() as proc:
        yield proc


def hook(kind: str, at: float, n: int, proc: subprocess.Popen | None, **fields: object) -> tuple[str, Evidence]:
    process = {} if proc is None else {"pid": proc.pid, "pstart": psutil.Process(proc.pid).create_time()}
    ev = Evidence(provider="claude", session_id="s1", kind=kind, at=at, source="hook", cwd="/p", **process, **fields)
    return f"e{n}", ev


def row(conn) -> dict:
    return json.loads(conn.execute("SELECT data FROM snapshot").fetchone()[0])


def make(tmp_path) -> tuple[object, Feed, Collector]:
    conn = store.connect(tmp_path / "store.sqlite3")
    feed = Feed()
    return conn, feed, Collector(conn, spool_dir=tmp_path / "spool", sources=[feed])


@pytest.mark.process
def test_a_ready_session_is_open_while_its_client_runs_and_ended_once_it_is_killed(tmp_path, monkeypatch, client):
    conn, feed, collector = make(tmp_path)
    feed.queued = [
        hook("UserPromptSubmit", NOW - 300, 1, client),
        hook("Stop", NOW - 240, 2, client),
        # The client's idle notice a minute later, and a bare SessionStart of nothing: no activity of the session.
        hook("Notification", NOW - 180, 3, client, notification="idle_prompt"),
    ]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    first = row(conn)
    assert (first["state"], first["open"]) == ("ready", True)
    assert epoch(first["last_active"]) == NOW - 240  # the reply, not the idle notice after it
    assert epoch(first["updated"]) == NOW - 180

    decided: list[str] = []
    from lunavect.collector import tick as collector_module

    original = collector_module.decide

    def counting(facts, *args, **kwargs):
        decided.append(facts.session_id)
        return original(facts, *args, **kwargs)

    monkeypatch.setattr(collector_module, "decide", counting)
    collector.snapshot(NOW + 20)
    assert decided == [] and row(conn)["open"]  # at rest: its process is asked, the row is not built again

    client.kill()
    client.wait()
    collector.snapshot(NOW + 40)  # no evidence at all: the process is gone
    after = row(conn)
    assert (after["state"], after["open"]) == ("ready", False)
    assert after["last_active"] == first["last_active"]
    decided.clear()
    collector.snapshot(NOW + 60)
    assert decided == []  # ended: it rests for good
    conn.close()


@pytest.mark.process
def test_session_end_ends_it_though_its_process_still_runs(tmp_path, client):
    conn, feed, collector = make(tmp_path)
    feed.queued = [hook("UserPromptSubmit", NOW - 60, 1, client), hook("Stop", NOW - 50, 2, client)]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    assert row(conn)["open"]
    feed.queued = [hook("SessionEnd", NOW - 10, 3, client)]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    assert not row(conn)["open"]
    assert epoch(row(conn)["last_active"]) == NOW - 50
    conn.close()


@pytest.mark.process
def test_a_pid_reused_by_another_process_is_not_the_client(tmp_path, client):
    conn, feed, collector = make(tmp_path)
    _, real = hook("Stop", NOW - 50, 2, client)
    older = Evidence(**{**{f: getattr(real, f) for f in real.__struct_fields__}, "pstart": real.pstart - 3600})
    feed.queued = [hook("UserPromptSubmit", NOW - 60, 1, None), ("e2", older)]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    assert (row(conn)["state"], row(conn)["open"]) == ("ready", False)
    conn.close()


def test_a_codex_session_without_a_process_is_open_while_fresh_evidence_keeps_it_working(tmp_path):
    conn, feed, collector = make(tmp_path)
    feed.queued = [
        (
            "r1",
            Evidence(provider="codex", session_id="t1", kind="RolloutTurnStarted", at=NOW - 5, source="rollout"),
        )
    ]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    assert (row(conn)["state"], row(conn)["open"]) == ("working", True)
    assert epoch(row(conn)["last_active"]) == NOW - 5
    collector.snapshot(NOW + 3600)  # stale: nothing says its client still runs
    assert (row(conn)["state"], row(conn)["open"]) == ("unknown", False)
    conn.close()


@pytest.mark.process
def test_a_session_shown_by_another_process_than_its_runner_ends_with_that_process(tmp_path, client):
    """Codex's daemon runs the thread (its hooks record it) and outlives the TUI that shows it: once the TUI is
    named (`terminal` evidence), the row is that process's, open while it lives, ended when it exits, though
    the runner goes on (issue 48, item 2)."""
    conn, feed, collector = make(tmp_path)
    with sleeping_process() as tui:
        shown = {"pid": tui.pid, "pstart": psutil.Process(tui.pid).create_time(), "tty": "/dev/pts/77"}
        feed.queued = [
            hook("UserPromptSubmit", NOW - 60, 1, client),
            hook("Stop", NOW - 50, 2, client),
            (
                "t1",
                Evidence(provider="claude", session_id="s1", kind="TerminalClient", at=NOW, source="terminal", **shown),
            ),
        ]
        collector.poll_sources(NOW)
        collector.snapshot(NOW)
        first = row(conn)
        assert (first["open"], first["pid"], first["tty"]) == (True, tui.pid, "/dev/pts/77")
        assert epoch(first["last_active"]) == NOW - 50  # naming the terminal is no activity
        tui.kill()
        tui.wait()
        collector.snapshot(NOW + 2)
    after = row(conn)
    assert (after["state"], after["open"]) == ("ready", False)  # the runner still runs: only the terminal ended
    assert client.poll() is None
    conn.close()


def test_an_errors_age_runs_from_the_error_not_from_the_sessions_end(tmp_path, client):
    """An API error, then `/exit` five minutes later: the bars said the error's age from the end (issue 48,
    item 4). Its row keeps the error's moment, and every front end's age runs from it."""
    from lunavect.core.model import Session
    from lunavect.frontends.rows import waited

    conn, feed, collector = make(tmp_path)
    feed.queued = [
        hook("UserPromptSubmit", NOW - 320, 1, client),
        hook("StopFailure", NOW - 300, 2, client, error="server_error"),
        hook("SessionEnd", NOW - 10, 3, client, reason="other"),
    ]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    data = row(conn)
    assert (data["state"], data["open"], epoch(data["last_active"])) == ("error", False, NOW - 300)
    session = msgspec.json.decode(json.dumps(data).encode(), type=Session)
    assert waited(session, now=NOW) == "5m 00s"
    conn.close()
