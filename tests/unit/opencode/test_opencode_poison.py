"""A poisoned OpenCode database (issue 42, items 2 and 3): one bad row costs that row or that session, never
the source, and a FIFO where the database should be blocks nothing.

Real SQLite databases in OpenCode 1.18.33's shape (opencode_db_support.OpenCodeDb): a part nested 2,000
deep (which SQLite 3.40 fails a whole `json_extract` statement on), lone surrogate escapes (what
`JSON.stringify` writes for a string cut inside an emoji) in the fields lunavect extracts, and a session whose
every read fails.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from opencode_db_support import OpenCodeDb, T, tokens

from lunavect import store
from lunavect.clients.opencode import places
from lunavect.clients.opencode.conversation import find_conversation
from lunavect.clients.opencode.source import OpenCodeSource
from lunavect.collector import doctor
from lunavect.collector import loop as collector_loop
from lunavect.collector.tick import Collector
from lunavect.conversation.window import read_window
from lunavect.evidence.sources import NothingKnown
from lunavect.files import quarantine

DEEP, SURROGATE, BROKEN = "ses_deep000000000000000001", "ses_surrogate0000000000001", "ses_broken00000000000001"
HEALTHY = [f"ses_healthy{n:015d}" for n in range(17)]


def raw_part(db: OpenCodeDb, sid: str, mid: str, at: int, data: str) -> None:
    """A part whose `data` is `data` exactly, as OpenCode's JSON.stringify wrote it."""
    db.n += 1
    db.conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_{db.n:026d}", mid, sid, T + at, T + at, data))


def turn(db: OpenCodeDb, sid: str, at: int, title: str) -> str:
    """A session with a prompt and a running bash call; returns its assistant message."""
    db.session(sid, at, title)
    db.message(sid, at + 1, role="user")
    step = db.message(sid, at + 2, role="assistant", finish="tool-calls", modelID="m", tokens=tokens(10, 1))
    db.part(sid, step, at + 3, type="tool", tool="bash", callID=f"call_{sid}",
            state={"status": "running", "input": {"command": "x"}, "time": {"start": T + at + 3}})  # fmt: skip
    return step


def poisoned(path: Path) -> OpenCodeDb:
    db = OpenCodeDb(path)
    for n, sid in enumerate(HEALTHY):
        turn(db, sid, 100 * n, f"Healthy {n}")
    step = turn(db, DEEP, 5000, "Deep")
    deep = "[" * 2000 + "]" * 2000
    raw_part(db, DEEP, step, 5004, '{"type":"tool","tool":"edit","callID":"call_d","state":{"status":"completed",'
             f'"input":{{"x":{deep}}},"time":{{"start":{T + 5004},"end":{T + 5005}}}}}}}')  # fmt: skip
    step = turn(db, SURROGATE, 6000, "Surrogate")
    cut = json.dumps({"type": "tool", "tool": "\ud83d", "callID": "call_s", "state": {"status": "error",
                      "error": "The user rejected permission \ud83d", "time": {"start": T + 6004, "end": T + 6005}}})  # fmt: skip
    assert "\\ud83d" in cut
    raw_part(db, SURROGATE, step, 6004, cut)
    db.conn.execute(
        "UPDATE message SET data = json_set(data, '$.modelID', json('\"\\ud83d\"')) WHERE session_id = ?",
        (SURROGATE,),
    )
    return db


def read_all(source: OpenCodeSource, conn, polls: int = 10):
    """Poll until nothing is left to list, committing each batch; every batch returned."""
    batches = []
    for _ in range(polls):
        batch = source.poll(conn, 0)
        batch.commit(conn)
        batches.append(batch)
        if batch.backlog is None:
            break
    return batches


def described(batches) -> set[str]:
    return {ev.session_id for batch in batches for _id, ev in batch.evidence if ev.kind == "TranscriptMeta"}


def test_a_part_nested_2000_deep_and_lone_surrogates_cost_only_themselves(iso_env) -> None:
    poisoned(places.database_path())
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    batches = read_all(source, conn)
    assert described(batches) == {*HEALTHY, DEEP, SURROGATE}  # every session listed
    assert len(batches[-1].complete_listing[1]) == len(HEALTHY) + 2
    uses = {ev.tool_use_id: ev for batch in batches for _id, ev in batch.evidence if ev.kind == "TranscriptToolUse"}
    assert "call_ses_deep000000000000000001" in uses  # the deep session's other parts are read as ever
    assert "call_d" not in uses  # the part nobody can parse is a part without fields
    assert uses["call_s"].tool == "\ufffd" * 3  # what no UTF-8 holds is shown as such, not raised
    assert not quarantine.entries(conn)
    # Its conversation shows too, the unreadable part left out.
    shown = [(m.kind, m.tool) for m in read_window(find_conversation(DEEP)).messages]
    assert shown and ("tool", "bash") in [(str(kind), tool) for kind, tool in shown]


def test_a_session_that_cannot_be_read_is_set_aside_until_its_row_changes(iso_env) -> None:
    db = poisoned(places.database_path())
    turn(db, BROKEN, 7000, "Broken")
    # Its messages fail every read that reaches them (as a corrupt value would): SQLite's own error.
    db.conn.executescript(
        "ALTER TABLE message RENAME TO message_rows;"
        "CREATE VIEW message AS SELECT id, session_id, time_created, time_updated, "
        f"CASE WHEN session_id = '{BROKEN}' THEN json_extract(data, '$[') ELSE data END AS data FROM message_rows;"
    )
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    assert described(read_all(source, conn)) == {*HEALTHY, DEEP, SURROGATE}
    [entry] = quarantine.entries(conn)
    assert entry.source == "opencode.sessions" and BROKEN in entry.path and "JSON path" in entry.error
    assert any(BROKEN in problem.what for problem in doctor.examine().problems)
    # Unchanged, it is not read again; once its row changes, it is.
    db.session(HEALTHY[0], 9000, "Healthy again")
    again = described([source.poll(conn, 0)])
    assert HEALTHY[0] in again and BROKEN not in again
    db.conn.executescript(
        "DROP VIEW message; ALTER TABLE message_rows RENAME TO message;"
        f"UPDATE session SET time_updated = {T + 9500} WHERE id = '{BROKEN}';"
    )
    batch = source.poll(conn, 0)
    batch.commit(conn)
    assert BROKEN in described([batch])
    assert quarantine.entries(conn) == []


def test_sessions_a_discarded_poll_read_are_read_again(iso_env) -> None:
    db = OpenCodeDb(places.database_path())
    for n, sid in enumerate(HEALTHY):
        turn(db, sid, 100 * n, f"Healthy {n}")
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    first = source.poll(conn, 0)  # its batch is never stored (the collector's transaction failed)
    assert described([first])
    assert described(read_all(source, conn)) == set(HEALTHY)


@pytest.mark.process
def test_a_fifo_at_the_database_path_blocks_nothing_and_doctor_names_it(iso_env, monkeypatch, tmp_path) -> None:
    fifo = tmp_path / "opencode.db"
    os.mkfifo(fifo)
    monkeypatch.setenv("OPENCODE_DB", str(fifo))
    assert (
        iso_env.hook({"session_id": "s-fifo", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p"}).returncode == 0
    )

    def tick() -> None:  # the collector's own thread, its own store connection
        collector = Collector(store.connect(), sources=collector_loop.default_sources())
        collector.tick()
        for source in collector.sources:
            source.close()
        collector.conn.close()

    ticked = threading.Thread(target=tick, daemon=True)
    ticked.start()
    ticked.join(20)
    blocked = ticked.is_alive()
    if blocked:  # the old code: rescue the blocked open so that the test fails instead of hanging
        os.close(os.open(fifo, os.O_WRONLY))
        ticked.join(20)
    assert not blocked, "the collector's tick blocked in opening a FIFO"
    conn = iso_env.connect()
    row = conn.execute("SELECT data FROM snapshot WHERE id = 'claude:s-fifo'").fetchone()
    assert row is not None and json.loads(row[0])["state"] == "working"
    last = doctor.examine().collector["last_error"]  # what `lunavect doctor` shows
    assert last["where"] == "source opencode" and f"{fifo} is a FIFO" in last["error"], last
