"""The Claude files source through the real collector and store: hookless sessions from transcripts and the
live catalog, lifecycle-only launches left out, stable evidence across re-reads and rewrites, tool-launched
runtimes kept out, and hook events winning. Real processes (named copies of /bin/sh and /bin/sleep) stand
in for Claude runtimes; the process table a test's source sees is scoped to the processes the test made,
so other programs on the machine cannot make it ambiguous."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from claude_files_support import S1, S2, World, prompt, rec, reply, tool, tool_result
from unit_support import transcript_summary, wait_until

from lunavect import store
from lunavect.clients.claude.files_source import ClaudeFilesSource, background_tasks
from lunavect.collector.tick import Collector
from lunavect.host.processes import process, start_ticks
from lunavect.shim import entry

LINUX = sys.platform.startswith("linux")
needs_proc = pytest.mark.skipif(not LINUX, reason="real process trees are read from /proc")


def test_hookless_transcript_session_is_listed_with_what_it_proves(world):
    t = time.time() - 30
    world.transcript(
        S1,
        [
            {"type": "mode", "mode": "normal", "sessionId": S1},
            prompt(t, 1, cwd=str(world.work)),
            tool(t + 1, 2, command="make test"),
        ],
    )
    world.tick()
    session = world.sessions()[S1]
    assert (session.state, session.activity, session.title) == ("working", "Bash", "Fix the login bug")
    assert session.basis == ["transcript"] and session.cwd == str(world.work)
    world.transcript(S1, [reply(t + 5, 3)])
    world.tick()
    assert world.sessions()[S1].state == "ready"


@pytest.mark.process
def test_lifecycle_only_launch_stays_out_of_current_and_hidden_lists(world):
    pid = world.runtime()
    world.transcript(
        S1,
        [
            {"type": "mode", "mode": "normal", "sessionId": S1},
            {"type": "permission-mode", "permissionMode": "default", "sessionId": S1},
            {"type": "custom-title", "customTitle": "A saved title", "sessionId": S1},
        ],
    )
    world.catalog(pid, S1, "idle", time.time())
    world.tick()
    assert S1 not in world.sessions(hidden=True)
    facts = world.collector._facts[f"claude:{S1}"]
    assert facts.title == "A saved title" and not facts.active  # metadata kept, no task made of it


@pytest.mark.process
@needs_proc
def test_catalog_states_of_a_hookless_session(world):
    pid = world.runtime()
    t = time.time()
    world.transcript(S1, [prompt(t - 2, 1, cwd=str(world.work))])
    world.catalog(pid, S1, "waiting", t, waitingFor="permission prompt")
    world.tick()
    session = world.sessions()[S1]
    assert session.state == "permission" and session.pid == pid
    assert session.basis == ["catalog"]  # the evidence that decided the state
    facts = world.collector._facts[f"claude:{S1}"]
    assert (facts.tmux, facts.pstart) == ("s0:@0.%0", pytest.approx(process(pid).started))
    world.catalog(pid, S1, "busy", t + 1)
    world.tick()
    assert world.sessions()[S1].state == "working"
    world.catalog(pid, S1, "idle", t + 2)
    world.tick()
    assert world.sessions()[S1].state == "ready"


@pytest.mark.process
@needs_proc
def test_stale_catalog_entries_prove_nothing(world):
    pid = world.runtime()
    world.catalog(pid, S1, "busy", time.time(), procStart=str(int(start_ticks(pid)) + 5))  # a reused pid
    (world.config / "sessions" / "999999.json").write_text(
        json.dumps({"pid": 999999, "sessionId": S2, "procStart": "1", "status": "busy", "statusUpdatedAt": 1})
    )  # a crash
    world.tick()
    assert world.sessions() == {}
    assert world.conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


@pytest.mark.process
@needs_proc
def test_the_catalogs_process_exit_ends_a_working_session(world):
    pid = world.runtime()
    t = time.time()
    world.transcript(S1, [prompt(t - 1, 1)])
    world.catalog(pid, S1, "busy", t)
    world.tick()
    assert world.sessions()[S1].state == "working"
    for proc in world.procs:
        proc.kill()
        proc.wait()
    world.tick()
    session = world.sessions()[S1]
    assert session.state == "idle" and "process" in session.basis


def test_rereading_never_retimes_a_fact(world):
    t = time.time() - 100
    world.transcript(S1, [prompt(t, 1), reply(t + 2, 2)])
    world.tick()
    events = world.conn.execute("SELECT event_id, at FROM events ORDER BY event_id").fetchall()
    before = world.sessions()[S1]
    # The cursors lost (a store restored from an old copy, say) and the collector restarted: everything is
    # read again from the start.
    world.conn.execute("DELETE FROM claude_transcript")
    world.conn.execute("DELETE FROM claude_observation")
    world.source = ClaudeFilesSource(config_dir=world.config, processes=world.table)
    world.collector = Collector(world.conn, sources=[world.source])
    world.tick()
    assert world.conn.execute("SELECT count(*) FROM claude_transcript").fetchone()[0] == 1
    assert world.conn.execute("SELECT event_id, at FROM events ORDER BY event_id").fetchall() == events
    after = world.sessions()[S1]
    assert (after.state, after.updated, after.since) == (before.state, before.updated, before.since)


def test_file_rewritten_under_the_reader_is_read_again(world):
    t = time.time() - 60
    bash = [
        tool(t + 1, 2, call="toolu_b", command="sleep 100", run_in_background=True),
        tool_result(t + 2, 3, "toolu_b", {"stdout": "", "backgroundTaskId": "b1"}),
        reply(t + 3, 4),
    ]
    path = world.transcript(S1, [prompt(t, 1), *bash])
    world.tick()
    assert world.sessions()[S1].state == "background"
    assert world.sessions()[S1].background == {"shell": 1}
    inode = os.stat(path).st_ino
    # Rewritten in place: the same inode, the background command gone, a new turn after it.
    with open(path, "r+b") as f:
        f.truncate(0)
    world.transcript(S1, [prompt(t, 1), reply(t + 3, 4), prompt(t + 10, 5, text="Second task")])
    assert os.stat(path).st_ino == inode
    world.tick()
    assert background_tasks(world.conn, S1) == []
    summary = transcript_summary(world.conn, S1)
    assert summary.prompts == 2 and summary.title == "Fix the login bug"
    session = world.sessions()[S1]
    assert session.state == "working" and session.background == {}


def test_broken_lines_lose_nothing_else(world):
    t = time.time() - 10
    path = world.project / f"{S1}.jsonl"
    good = [json.dumps(r, separators=(",", ":")).encode() for r in (prompt(t, 1), reply(t + 1, 2))]
    broken = [
        b'{"type":"user",broken',
        b'{"type":"user","message":{"content":"\xff\xfe"}}',
        b"\xff\xfe\xfd",
        b'{"type":"novel-kind","uuid":"x"}',
        b"",
        b"[1,2]",
    ]
    path.write_bytes(b"\n".join([good[0], *broken, good[1]]) + b"\n")
    world.tick()
    assert world.sessions()[S1].state == "ready"
    # Only the cut-short user record is counted: the others cannot matter (no record type lunavect reads)
    # or break only a part that is never decoded.
    assert transcript_summary(world.conn, S1).unreadable == 1
    assert store.counters(world.conn)["claude.transcript.skipped_lines"] == 1


S0 = "00000000-1111-2222-3333-444444444444"


@pytest.mark.process
@needs_proc
def test_claude_started_by_another_agents_command_is_not_listed(world):
    outer, child = world.tool_launched_runtime()
    t = time.time()
    world.catalog(outer, S0, "busy", t - 1)  # the person's interactive session, running a Bash tool call
    world.transcript(
        S2,
        [
            rec("queue-operation", t + 0.2, 0, session=S2, operation="enqueue", content="nested"),
            prompt(t + 0.3, 1, session=S2, cwd=str(world.work)),
            reply(t + 1, 2, session=S2),
        ],
    )
    world.tick()
    assert S2 not in world.sessions(hidden=True)
    assert world.conn.execute("SELECT id FROM internal").fetchall() == [(f"claude:{S2}",)]
    assert process(child) is not None
    from lunavect.listing.sessions import counts

    assert set(world.sessions(hidden=True)) == {S0}
    assert counts(world.conn)["working"] == 1  # the outer session only; the nested one never counts


@pytest.mark.process
@needs_proc
def test_ambiguous_origin_invents_none(world):
    outer, _child = world.tool_launched_runtime()
    world.runtime()  # the person's own `claude -p` in the same folder, started at the same moment
    t = time.time()
    world.catalog(outer, S0, "busy", t - 1)
    world.transcript(S2, [prompt(t + 0.3, 1, session=S2, cwd=str(world.work)), reply(t + 1, 2, session=S2)])
    world.tick()
    assert S2 in world.sessions()


@pytest.mark.process
@needs_proc
def test_a_persons_own_run_is_listed(world):
    world.runtime()
    t = time.time()
    world.tick()  # seen before its transcript: a candidate, with no agent above it
    world.transcript(S2, [prompt(t + 0.3, 1, session=S2, cwd=str(world.work)), reply(t + 1, 2, session=S2)])
    # A file new since the watch started is found when the operating system tells it, a moment after the write.
    wait_until(lambda: world.tick() or S2 in world.sessions(), "the person's own run was never listed")
    assert S2 not in {key.split(":", 1)[1] for (key,) in world.conn.execute("SELECT id FROM internal")}


@pytest.mark.process
@needs_proc
def test_interactive_runtime_under_an_agent_is_internal_unless_declared_background(world):
    _outer, child = world.tool_launched_runtime()
    t = time.time()
    world.transcript(S1, [prompt(t, 1)])
    world.catalog(child, S1, "busy", t)
    world.tick()
    assert S1 not in world.sessions(hidden=True)
    assert world.conn.execute("SELECT count(*) FROM internal").fetchone()[0] == 1

    other = World(world.root / "second")
    try:
        other.pids = world.pids
        child_bg = child
        other.transcript(S2, [prompt(t, 1, session=S2)])
        other.catalog(child_bg, S2, "busy", t, kind="bg")
        other.tick()
        assert S2 in other.sessions()  # a declared background session stays independent
    finally:
        other.conn.close()


def test_hook_events_win_over_the_transcript(world, iso_env):
    t = time.time()
    payload = {
        "session_id": S1,
        "transcript_path": str(world.project / f"{S1}.jsonl"),
        "cwd": str(world.work),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "secret",
    }
    entry.handle("claude", json.dumps(payload).encode(), None, environ=iso_env.env, now=t)
    entry.handle(
        "claude",
        json.dumps(
            payload | {"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "t9", "tool_input": {}}
        ).encode(),
        None,
        environ=iso_env.env,
        now=t + 1,
    )
    # The transcript lags and says the turn ended: coarser than the hook, so the hook's state stands.
    world.transcript(S1, [prompt(t - 5, 1), reply(t + 0.5, 2)])
    world.tick(t + 2)
    session = world.sessions()[S1]
    assert (session.state, session.activity) == ("working", "Edit")
    assert session.basis == ["hook"]
    assert session.title == "Fix the login bug"  # titles still come from the transcript


def test_background_agent_from_the_transcript(world):
    t = time.time() - 20
    launch = tool(
        t + 1, 2, name="Agent", call="toolu_a", description="d", subagent_type="general-purpose", run_in_background=True
    )
    world.transcript(
        S1,
        [
            prompt(t, 1),
            launch,
            tool_result(t + 1.5, 3, "toolu_a", {"isAsync": True, "status": "async_launched", "agentId": "a9"}),
            reply(t + 2, 4),
        ],
    )
    world.tick()
    session = world.sessions()[S1]
    assert (session.state, session.background) == ("background", {"agent": 1})
    note = (
        "<task-notification>\n<task-id>a9</task-id>\n<tool-use-id>toolu_a</tool-use-id>\n"
        "<status>completed</status>\n</task-notification>"
    )
    world.transcript(
        S1,
        [
            rec("user", t + 8, 5, message={"role": "user", "content": note}, origin={"kind": "task-notification"}),
            reply(t + 9, 6),
        ],
    )
    world.tick()
    session = world.sessions()[S1]
    assert (session.state, session.background) == ("ready", {})
    (task,) = background_tasks(world.conn, S1)
    assert (task.id, task.state, task.tool_use_id) == ("a9", "completed", "toolu_a")


def test_each_file_is_read_once_per_tick_and_links_do_not_double_it(world):
    t = time.time() - 5
    world.transcript(S1, [prompt(t, 1)])
    alias = world.config / "projects" / "-alias"
    alias.mkdir()
    os.symlink(world.project / f"{S1}.jsonl", alias / f"{S1}.jsonl")
    world.tick()
    assert world.conn.execute("SELECT count(*) FROM claude_transcript").fetchone()[0] == 1


def test_a_deleted_transcript_takes_its_cursor_with_it(world, monkeypatch):
    from lunavect.clients.claude import discovery

    monkeypatch.setattr(discovery, "SWEEP_S", 0.0)  # every tick a whole sweep
    t = time.time() - 5
    path = world.transcript(
        S1,
        [
            prompt(t, 1),
            tool(t + 1, 2, call="toolu_b", command="make", run_in_background=True),
            tool_result(t + 2, 3, "toolu_b", {"backgroundTaskId": "b1"}),
        ],
    )
    world.tick()
    assert world.conn.execute("SELECT count(*) FROM claude_observation").fetchone()[0] == 2
    path.unlink()
    world.tick()
    assert world.conn.execute("SELECT count(*) FROM claude_transcript").fetchone()[0] == 0
    assert world.conn.execute("SELECT count(*) FROM claude_observation").fetchone()[0] == 0
    assert S1 in world.sessions()  # the session's facts stay; only the file's cursor went
