"""The Codex source in a collector, on crafted rollouts in an isolated CODEX_HOME (no app-server: the
catalog is unavailable, as when Codex cannot be started), and the Codex hook-record mapping.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import msgspec
import pytest
from codex_source_support import A, B, Home, T, call, complete, meta, prompt, stamp, started

from lunavect.clients.codex.hooks import evidence_from_record
from lunavect.evidence.spool_record import SpoolRecord

CHILD = "01a227be-6666-7c51-8158-933e9468ff3b"
SEGMENT = "01a227be-7777-7c51-8158-933e9468ff3b"


@pytest.fixture
def home(tmp_path: Path):
    h = Home(tmp_path)
    yield h
    h.close()


def test_a_rollout_turn_is_working_then_ready_and_re_reading_stores_nothing_twice(home: Home) -> None:
    path = home.rollout(
        A, meta(A, T) + prompt("Fix the build", T + 1) + started("u1", T + 1) + call("exec_command", "c1", T + 2)
    )
    rows = home.tick(T + 3)
    row = rows[f"codex:{A}"]
    assert row["state"] == "working" and row["activity"] == "Bash" and row["title"] == "Fix the build"
    assert row["since"] == stamp(T + 1) and row["resume"] == f"cd /w && codex resume {A}"
    assert row["client"] == "exec" and row["basis"] == ["rollout"]
    count = len(home.events())
    home.tick(T + 4)
    assert len(home.events()) == count  # nothing changed: nothing read, nothing stored
    with open(path, "a") as f:
        f.write(complete("u1", T + 5))
    assert home.tick(T + 6)[f"codex:{A}"]["state"] == "ready"
    kinds = [kind for _, kind in home.events()]
    assert kinds.count("RolloutTurnStarted") == 1 and kinds.count("RolloutTurnComplete") == 1


def test_the_cursor_survives_a_restart_and_reads_only_what_was_appended(home: Home) -> None:
    path = home.rollout(A, meta(A, T) + started("u1", T + 1))
    assert home.tick(T + 2)[f"codex:{A}"]["state"] == "working"
    home.restart()
    offset = json.loads(home.conn.execute("SELECT cursor FROM codex_rollout").fetchone()[0])["offset"]
    assert offset == path.stat().st_size
    with open(path, "a") as f:
        f.write(complete("u1", T + 3))
    rows = home.tick(T + 4)
    assert rows[f"codex:{A}"]["state"] == "ready"
    assert rows[f"codex:{A}"]["since"] is None
    ids = [event_id for event_id, _ in home.events()]
    assert len(ids) == len(set(ids))


def test_a_codex_session_goes_stale_after_120_s_without_a_writer(home: Home) -> None:
    home.rollout(A, meta(A, T) + started("u1", T + 1))
    assert home.tick(T + 2)[f"codex:{A}"]["state"] == "working"
    assert home.tick(T + 100)[f"codex:{A}"]["state"] == "working"
    assert home.tick(T + 125)[f"codex:{A}"]["state"] == "unknown"  # nobody holds the rollout open


def test_sub_agents_and_the_memory_agent_are_never_listed(home: Home) -> None:
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": A, "depth": 1}}}
    home.rollout(A, meta(A, T) + started("u1", T + 1) + complete("u1", T + 3))
    home.rollout(
        CHILD, meta(CHILD, T + 1, source=spawn, parent_thread_id=A) + started("c1", T + 1.5), stamp_="14-38-33"
    )
    memories = home.codex / "memories"
    memories.mkdir()
    home.rollout(B, meta(B, T, cwd=str(memories)) + started("m1", T + 1), stamp_="14-38-34")
    rows = home.tick(T + 4)
    assert set(rows) == {f"codex:{A}"}
    assert rows[f"codex:{A}"]["state"] == "ready"  # the parent keeps its own status
    assert {f"codex:{CHILD}", f"codex:{B}"} <= home.collector.internal
    # hook-only observations of the memory agent: its lifecycle looks like a task
    record = {
        "v": 1,
        "id": "h1",
        "client": "codex",
        "t": T + 5,
        "event": "UserPromptSubmit",
        "session": "01a227be-8888-7c51-8158-933e9468ff3b",
        "cwd": str(memories),
        "turn_id": "m2",
    }
    home.spool.mkdir(exist_ok=True)
    (home.spool / "events.jsonl").write_text(json.dumps(record) + "\n")
    rows = home.tick(T + 6)
    assert set(rows) == {f"codex:{A}"}
    assert "codex:01a227be-8888-7c51-8158-933e9468ff3b" in home.collector.internal
    # a later gap (the child's rollout gone) never brings it back
    for path in home.day.glob(f"*{CHILD}*"):
        path.unlink()
    home.restart()
    assert set(home.tick(T + 7)) == {f"codex:{A}"}


def test_segmented_names_need_a_matching_header_and_archived_rollouts_are_not_live(home: Home) -> None:
    home.rollout(A, meta(A, T) + started("u1", T + 1), segment=SEGMENT)
    home.rollout(B, meta(CHILD, T) + started("u2", T + 1), segment=SEGMENT, stamp_="14-38-35")
    archived = home.codex / "archived_sessions"
    archived.mkdir()
    (archived / f"rollout-2026-11-29T14-38-36-{CHILD}.jsonl").write_text(meta(CHILD, T) + started("u3", T + 1))
    rows = home.tick(T + 2)
    assert set(rows) == {f"codex:{A}"}  # the primary thread, once; the mismatched header is not B's


def test_bad_files_lose_nothing_already_stored(home: Home) -> None:
    path = home.rollout(A, meta(A, T) + started("u1", T + 1) + complete("u1", T + 2))
    assert home.tick(T + 3)[f"codex:{A}"]["state"] == "ready"
    with open(path, "ab") as f:
        f.write(b"\xff\xfe garbage\n{not json}\n" + b"x" * 3_000_000 + b"\n")
    home.rollout(B, "this is not a rollout\n", stamp_="14-38-40")
    rows = home.tick(T + 4)
    assert rows[f"codex:{A}"]["state"] == "ready" and f"codex:{B}" not in rows
    path.write_text("")  # truncated to nothing
    assert home.tick(T + 5)[f"codex:{A}"]["state"] == "ready"


def test_without_an_app_server_the_catalog_is_unavailable_not_broken(home: Home) -> None:
    home.rollout(A, meta(A, T) + started("u1", T + 1))
    home.tick(T + 2)
    home.source.catalog.wait(10)
    home.tick(T + 3)
    assert home.source.catalog.server is None
    assert home.tick(T + 4)[f"codex:{A}"]["state"] == "working"


# -- the Codex hook records ----------------------------------------------------------------------------------


def record(event: str, **fields) -> SpoolRecord:
    return msgspec.convert(
        {"v": 1, "id": "x", "client": "codex", "t": T, "event": event, "session": A, **fields}, SpoolRecord
    )


def test_codex_hook_records_become_codex_evidence() -> None:
    ev = evidence_from_record(record("PreToolUse", tool="Bash", tool_use_id="c1", turn_id="u1"))
    assert (ev.provider, ev.kind, ev.tool, ev.turn_id) == ("codex", "PreToolUse", "Bash", "u1")
    ask = evidence_from_record(record("PreToolUse", tool="request_user_input"))
    assert ask.kind == "Elicitation" and ask.tool == "request_user_input"
    wait = evidence_from_record(record("PreToolUse", tool="multi_agent_v1wait_agent"))
    assert wait.tool == "wait_agent"
    child = evidence_from_record(record("UserPromptSubmit", agent_id="a1"))
    assert child.agent_id == "a1" and child.kind == "UserPromptSubmit"
    assert evidence_from_record(record("Interrupt")).kind == "Interrupt"
    assert evidence_from_record(msgspec.convert({"client": "codex", "event": "Stop"}, SpoolRecord)) is None
    assert msgspec.json.encode(ev)  # serialisable as stored


@pytest.mark.parametrize(
    "info, code, reason",
    [
        ("internal_server_error", "server_error", "service"),
        ("server_overloaded", "overloaded", "service"),
        ("usage_limit_exceeded", "rate_limit", "limit"),
        ("unauthorized", "authentication_failed", "auth"),
        ({"http_connection_failed": {"http_status_code": 401}}, "authentication_failed", "auth"),
        ({"response_too_many_failed_attempts": {"http_status_code": 429}}, "rate_limit", "limit"),
        ({"response_stream_disconnected": {"http_status_code": None}}, "connection_error", "unreachable"),
        ({"http_connection_failed": {"http_status_code": 503}}, "server_error", "service"),
        ("context_window_exceeded", "other", "other"),
    ],
)
def test_a_failed_turns_error_kind_reaches_the_rules_as_its_reason(info, code: str, reason: str) -> None:
    from lunavect.clients.codex.cursor import boundary_of
    from lunavect.clients.codex.vocabulary import error_code
    from lunavect.core.rules import error_reason

    record = {
        "timestamp": stamp(T),
        "type": "event_msg",
        "payload": {
            "type": "task_complete",
            "turn_id": "A",
            "last_agent_message": None,
            "error": {"message": "private words", "codex_error_info": info},
        },
    }
    boundary = boundary_of(record)
    assert "private" not in json.dumps(msgspec.to_builtins(boundary))
    assert error_code(boundary.error, boundary.http_status) == code
    assert error_reason(code, None, boundary.http_status).value == reason
    assert boundary_of({**record, "payload": {"type": "task_complete", "turn_id": "A"}}).error is None


def test_a_sub_agents_hooks_never_make_its_parent_internal(home: Home) -> None:
    """Codex 0.169.0 reports a sub-agent's events with the parent's session id, its own `agent_id` and the
    sub-agent's own rollout as `transcript_path`: that rollout must not become the parent's."""
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": A, "depth": 1}}}
    child = home.rollout(
        CHILD, meta(CHILD, T + 1, source=spawn, parent_thread_id=A) + started("c1", T + 1.5), stamp_="14-38-33"
    )
    parent = home.rollout(A, meta(A, T) + started("u1", T + 0.5))
    base = {"v": 1, "client": "codex", "session": A}
    lines = [
        {**base, "id": "e1", "t": T + 0.6, "event": "UserPromptSubmit", "turn_id": "u1", "transcript": str(parent)},
        {**base, "id": "e2", "t": T + 1.1, "event": "SubagentStart", "agent_id": CHILD, "transcript": str(child)},
        {
            **base,
            "id": "e3",
            "t": T + 1.2,
            "event": "UserPromptSubmit",
            "agent_id": CHILD,
            "turn_id": "c1",
            "transcript": str(child),
        },
    ]
    home.spool.mkdir(exist_ok=True)
    (home.spool / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = home.tick(T + 2)
    assert f"codex:{A}" not in home.collector.internal and f"codex:{CHILD}" in home.collector.internal
    assert rows[f"codex:{A}"]["state"] == "working" and rows[f"codex:{A}"]["since"] == stamp(T + 0.6)
    facts = json.loads(home.conn.execute("SELECT data FROM facts WHERE id = ?", (f"codex:{A}",)).fetchone()[0])
    assert facts["transcript"] == str(parent)


def test_a_thread_archived_after_it_was_listed_leaves_the_current_list(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lunavect.clients.codex import source as source_module

    monkeypatch.setattr(source_module, "DISCOVERY_INTERVAL_S", 0.0)
    path = home.rollout(A, meta(A, T) + prompt("Fix the build", T + 1) + started("u1", T + 1) + complete("u1", T + 2))
    assert home.tick(T + 3)[f"codex:{A}"]["state"] == "ready"
    archived = home.codex / "archived_sessions"
    archived.mkdir()
    path.rename(archived / path.name)  # what Codex's /archive (thread/archive) does
    # The move is told by the operating system a moment after it happens (or found by the look the source
    # takes while its watch starts): it leaves the list at a tick after that.
    deadline = time.monotonic() + 10
    now = T + 4
    while True:
        home.tick(now)
        listed = home.conn.execute("SELECT listed FROM snapshot WHERE id = ?", (f"codex:{A}",)).fetchall()
        if listed in ([], [(0,)]) or time.monotonic() > deadline:
            break
        now += 1
        time.sleep(0.05)
    assert listed in ([], [(0,)])  # kept in the store, not a current session
