"""The counters and "needs you" read only the rows they can count (`listing.sessions.COUNTED_STATES`): a bar
that runs `counts`, `status` or `next --print` every second decodes the few sessions that work or wait, not a
history of 50,000 finished ones, and says exactly what reading every row says (another host's rows, a silent
host's, hidden and dismissed ones included)."""

from __future__ import annotations

import msgspec
from unit_support import a_session, seed_snapshot

from lunavect.core.model import State
from lunavect.core.times import iso
from lunavect.listing import attention, sessions
from lunavect.sync.state_keys import HEARTBEAT_BASIS

NOW = 1_800_000_000.0


def remote(conn, host: str, heard: float, *rows) -> None:
    conn.execute(
        "INSERT INTO remote_host (host, heard, beat_s, revision, machine, person_at) VALUES (?, ?, 30, 1, NULL, NULL)",
        (host, heard),
    )
    for row in rows:
        conn.execute(
            "INSERT INTO remote_session (host, id, data, revision, first_heard) VALUES (?, ?, ?, 1, ?)",
            (host, row.id, msgspec.json.encode(row).decode(), heard),
        )
    conn.commit()


def history(conn, finished: int) -> None:
    """A mix of every state on this machine and two others (one heard now, one silent for an hour), behind a
    history of `finished` ready and idle sessions."""
    at = iso(NOW - 120)
    seed_snapshot(
        conn,
        *(
            a_session(f"old-{i}", state=State.READY if i % 2 else State.IDLE, last_active=at, updated=at)
            for i in range(finished)
        ),
        a_session("work", state=State.WORKING, open=True, last_active=at, updated=at),
        a_session("bg", state=State.BACKGROUND, open=True, last_active=at, updated=at),
        a_session("ask", state=State.PERMISSION, open=True, last_active=iso(NOW - 300), updated=at),
        a_session("hidden-ask", state=State.INPUT, open=True, hidden=True, last_active=at, updated=at),
        a_session("fail", state=State.ERROR, error="rate_limit", open=True, last_active=at, updated=at),
        a_session("fail-ended", state=State.ERROR, error="rate_limit", open=False, last_active=at, updated=at),
    )
    remote(
        conn,
        "there",
        NOW - 5,
        a_session("r-ask", state=State.PERMISSION, host="there", open=True, last_active=at, updated=at),
        a_session("r-ready", state=State.READY, host="there", last_active=at, updated=at),
    )
    remote(
        conn,
        "silent",
        NOW - 3600,
        a_session("s-work", state=State.WORKING, host="silent", open=True, basis=[HEARTBEAT_BASIS], updated=at),
    )


def test_the_counted_rows_say_what_every_row_says(iso_env):
    conn = iso_env.connect()
    history(conn, 200)
    everything = sessions.read_sessions(conn, include_hidden=True, now=NOW)
    counted = sessions.read_counted(conn, NOW)
    assert (
        sessions.count_sessions(counted)
        == sessions.count_sessions(everything)
        == {
            "working": 2,
            "awaiting_input": 3,
        }
    )
    whole = attention.summarize_sessions(everything)
    summary = attention.summarize(conn, now=NOW)
    assert [s.id for s in summary.attention] == [s.id for s in whole.attention]
    assert [s.id for s in summary.attention] == ["claude:ask", "claude:r-ask", "claude:hidden-ask", "claude:fail"]
    assert (summary.errors, summary.awaiting_elsewhere, summary.working_elsewhere) == (
        whole.errors,
        whole.awaiting_elsewhere,
        whole.working_elsewhere,
    )
    assert summary.awaiting_elsewhere == 1 and summary.errors == 1
    assert sessions.counts(conn, NOW) == {"working": 2, "awaiting_input": 3}


def test_a_long_history_of_finished_sessions_is_never_decoded(iso_env, monkeypatch):
    conn = iso_env.connect()
    history(conn, 2_000)
    decoded: list[str] = []
    real = sessions._decode

    def counting(data: str):
        session = real(data)
        if session is not None:
            decoded.append(session.session_id)
        return session

    monkeypatch.setattr(sessions, "_decode", counting)
    attention.summarize(conn, now=NOW)
    sessions.counts(conn, NOW)
    assert not [sid for sid in decoded if sid.startswith("old-") or sid == "r-ready"]
    assert len(decoded) == 2 * 8  # the eight counted rows, once per read


def test_the_counted_rows_are_found_through_the_snapshots_state_index(iso_env):
    conn = iso_env.connect()
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM snapshot WHERE listed = 1 AND state IN (?, ?)", ("working", "input")
    ).fetchall()
    assert any("snapshot_by_state" in str(step) for step in plan), plan


def test_a_damaged_row_of_another_host_is_left_out_not_a_stop(iso_env):
    """Text that is not JSON in a stored row (a damaged store) is left out of the counters, as the whole list
    leaves it out: it never stops `counts`, `status` or the collector's tmux publishing."""
    conn = iso_env.connect()
    history(conn, 10)
    conn.execute(
        "INSERT INTO remote_session (host, id, data, revision, first_heard) VALUES ('there', 'claude:bad', '{bad', 1, ?)",
        (NOW,),
    )
    conn.commit()
    assert sessions.counts(conn, NOW) == sessions.count_sessions(sessions.read_sessions(conn, True, NOW))
    assert [s.id for s in attention.summarize(conn, now=NOW).attention][:2] == ["claude:ask", "claude:r-ask"]
