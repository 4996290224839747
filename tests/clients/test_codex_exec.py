"""The real Codex CLI 0.169.0 through `codex exec`, watched by lunavect.

Each test runs Codex in an isolated HOME against the scripted Responses API and reads what lunavect shows
(`lunavect list --json`, or an in-process collector when the test needs to move the clock past the 120 s
freshness limit). With hooks means `lunavect hooks install` installed and had Codex trust them; without hooks
means the rollout and the app-server are all lunavect has.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from codex_harness import (
    install_hooks,
    lunavect,
    native_codex,
    rollouts,
    run_exec,
    sessions,
    start_exec,
    wait_rollout_record,
    wait_session,
)
from lunavect_probe import assert_kept_out
from responses_server import ResponsesServer, custom, exec_command, function_call, is_subagent, message


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "rollout-only"])
def test_a_reply_ends_ready(codex, codex_server: ResponsesServer, hooks: bool) -> None:
    paths, iso, env = codex
    if hooks:
        install_hooks(env)
    codex_server.script(message("All done here"))

    proc = run_exec(paths, env, iso.work, "say you are done")

    assert proc.returncode == 0, proc.stderr[-2000:]
    session = wait_session(env, lambda s: s["state"] == "ready", timeout=30)
    thread = rollouts(iso)[0].name[-len(session["session_id"]) - 6 : -6]
    assert session["session_id"] == thread
    assert session["id"] == f"codex:{thread}"
    assert session["resume"].endswith(f"codex resume {thread}")
    assert session["cwd"] == str(iso.work) and session["project"] == "work"
    assert session["client"] == "exec"
    assert session["title"] == "say you are done"
    assert session["basis"] == (["hook"] if hooks else ["rollout"])
    counts = json.loads(lunavect(env, "counts", "--json").stdout)
    assert counts == {"working": 0, "awaiting_input": 0}


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "rollout-only"])
def test_a_command_that_runs_for_seconds_shows_working(codex, codex_server: ResponsesServer, hooks: bool) -> None:
    paths, iso, env = codex
    if hooks:
        install_hooks(env)
    release, marker = iso.root / "release", iso.root / "command-ran"
    # The command runs until the test has seen it working (at most a minute), then ends.
    command = f"for i in $(seq 600); do [ -e {release} ] && break; sleep 0.1; done; touch {marker}"
    codex_server.script(exec_command(command, yield_time_ms=30000), message("The command finished"))

    started = time.time()
    proc = start_exec(paths, env, iso.work, "run the slow command")
    try:
        working = wait_session(env, lambda s: s["state"] == "working" and s["activity"] == "Bash", timeout=60)
        assert not marker.exists()  # it is really still running
        assert working["since"] is not None
        assert started - 5 < _epoch(working["since"]) < time.time()
        assert json.loads(lunavect(env, "counts", "--json").stdout)["working"] == 1
        time.sleep(2)
        assert wait_session(env, lambda s: True)["state"] == "working"  # seconds later, still
        release.touch()
        assert proc.wait(60) == 0
    finally:
        release.touch()
        if proc.poll() is None:
            proc.kill()
    assert marker.exists()
    ready = wait_session(env, lambda s: s["state"] == "ready", timeout=30)
    assert ready["session_id"] == working["session_id"]


def _epoch(iso_text: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(iso_text.replace("Z", "+00:00")).timestamp()


def test_kill_9_with_hooks_never_leaves_it_working(codex, codex_server: ResponsesServer) -> None:
    paths, iso, env = codex
    install_hooks(env)
    codex_server.script(exec_command("sleep 120", yield_time_ms=30000))
    proc = start_exec(paths, env, iso.work, "run the endless command")
    try:
        # The rollout may show the work a moment before the hooks' events (which carry the pid) are read.
        working = wait_session(env, lambda s: s["state"] == "working" and s["pid"] is not None, timeout=40)
        native = native_codex(proc.pid)
        assert working["pid"] == native  # the hooks name the native process, not the node launcher
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert after["state"] == "idle" and after["session_id"] == working["session_id"]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_without_hooks_a_killed_client_goes_stale_by_the_120_s_rule_and_a_live_writer_holds_it(
    codex, codex_server: ResponsesServer, tmp_path: Path
) -> None:
    """The writer proof, with a collector whose clock the test moves: Codex holding the rollout open for
    writing keeps the unfinished response working past 120 s; once it is killed, one missed process snapshot
    keeps the ownership, the second retires it and the session is stale (unknown)."""
    from lunavect import store
    from lunavect.clients.codex.source import CodexSource
    from lunavect.collector.tick import Collector

    paths, iso, env = codex
    codex_server.script(exec_command("sleep 120", yield_time_ms=30000))
    proc = start_exec(paths, env, iso.work, "run the endless command")
    conn = store.connect(tmp_path / "lv.sqlite3")
    source = CodexSource(codex_home=iso.codex_dir, env=env)
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[source])
    try:
        rollout = wait_rollout_record(iso, '"type":"function_call"', timeout=40)
        deadline = time.monotonic() + 30
        while _state(conn) != "working":
            assert time.monotonic() < deadline, _state(conn)
            collector.tick()
            time.sleep(0.2)
        base = time.time()
        collector.snapshot(now=base + 125)  # past the limit, Codex alive and writing
        assert _state(conn) == "working"
        assert source.proof.checks == 1

        native = native_codex(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        _wait_gone(native)  # a loaded machine takes a moment to tear a killed process down
        assert rollout.exists()
        collector.snapshot(now=base + 140)  # the first missed snapshot keeps the ownership
        assert _state(conn) == "working"
        collector.snapshot(now=base + 155)  # the second retires it
        assert _state(conn) == "unknown"
        assert source.proof.checks == 3
        collector.snapshot(now=time.time() + 5)  # within the limit the rollout's evidence still stands
        assert _state(conn) == "working"
    finally:
        source.close()
        conn.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def _wait_gone(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while os.path.exists(f"/proc/{pid}/fd/0") or _is_running(pid):
        assert time.monotonic() < deadline, f"process {pid} still there"
        time.sleep(0.05)


def _is_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _state(conn: sqlite3.Connection) -> str | None:
    rows = [json.loads(data) for (data,) in conn.execute("SELECT data FROM snapshot")]
    codex_rows = [r for r in rows if r["provider"] == "codex"]
    return codex_rows[0]["state"] if codex_rows else None


def test_a_spawned_sub_agent_is_never_listed(codex, codex_server: ResponsesServer) -> None:
    paths, iso, env = codex
    install_hooks(env)

    def wait_for_spawned(req):
        spawned = [
            json.loads(o["output"]).get("agent_id")
            for o in req.function_outputs()
            if '"agent_id"' in str(o.get("output"))
        ]
        return function_call("wait_agent", {"targets": spawned, "timeout_ms": 30000}, namespace="multi_agent_v1")

    codex_server.script(message("The sub-agent says hi"), match=is_subagent, route="subagent")
    codex_server.script(
        function_call("spawn_agent", {"message": "say hi"}, namespace="multi_agent_v1"),
        custom(wait_for_spawned),
        message("Main loop done"),
    )

    proc = run_exec(paths, env, iso.work, "delegate the greeting")

    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [r.route for r in codex_server.responses_requests].count("subagent") >= 1
    files = rollouts(iso)
    assert len(files) == 2  # the parent's and the child's own rollout
    parent = wait_session(env, lambda s: s["state"] == "ready", timeout=30)
    time.sleep(2)  # more collector ticks: the child's rollout and the catalog are read by now
    listed = [s for s in sessions(env) if s["provider"] == "codex"]
    assert [s["session_id"] for s in listed] == [parent["session_id"]]
    child = next(f for f in files if parent["session_id"] not in f.name)
    child_id = child.name[-len(parent["session_id"]) - 6 : -6]
    conn = sqlite3.connect(iso.lunavect_home / "lunavect.sqlite3")
    try:
        internal = {row[0] for row in conn.execute("SELECT id FROM internal")}
        snapshot = {row[0] for row in conn.execute("SELECT id FROM snapshot")}
        hidden = {row[0] for row in conn.execute("SELECT id FROM arrangement")}
    finally:
        conn.close()
    assert f"codex:{child_id}" in internal
    assert f"codex:{child_id}" not in snapshot and f"codex:{child_id}" not in hidden
    # the parent kept its own status: its own reply, not the worker's
    assert parent["title"] == "delegate the greeting"
    assert json.loads(lunavect(env, "counts", "--json").stdout) == {"working": 0, "awaiting_input": 0}


def test_the_app_server_listing_includes_exec_sessions(codex, codex_server: ResponsesServer) -> None:
    from lunavect.clients.codex.catalog import Catalog

    paths, iso, env = codex
    codex_server.script(message("first"), message("second"))
    for prompt in ("first exec task", "second exec task"):
        assert run_exec(paths, env, iso.work, prompt).returncode == 0
    ids = {f.name[-42:-6] for f in rollouts(iso)}
    assert len(ids) == 2

    catalog = Catalog(iso.codex_dir, env)
    try:
        listing = catalog.refresh(active=[], candidates=[])
        assert listing.available and listing.complete
        assert set(listing.threads) == ids
        assert {t.title for t in listing.threads.values()} == {"first exec task", "second exec task"}
        assert {t.client for t in listing.threads.values()} == {"exec"}
        assert all(not t.internal for t in listing.threads.values())
        # a launcher script: the native executable behind it was learned from the successful request
        assert catalog.native is not None and catalog.native.native == str(paths.codex_native)
        # a known active task the server has never heard of is reported unconfirmed, not dropped
        ghost = "01a227c1-0000-7000-8000-000000000000"
        again = catalog.refresh(active=[ghost], candidates=sorted(ids))
        assert again.unconfirmed == {ghost} and set(again.threads) == ids
    finally:
        catalog.close()


def test_without_an_app_server_sessions_still_come_from_rollouts(codex, codex_server: ResponsesServer) -> None:
    paths, iso, env = codex
    codex_server.script(message("done"))
    assert run_exec(paths, env, iso.work, "a task without a catalog").returncode == 0
    broken = dict(env, LUNAVECT_CODEX=str(iso.root / "no-such-codex"))
    session = wait_session(broken, lambda s: s["state"] == "ready", timeout=30)
    assert session["title"] == "a task without a catalog"  # from the rollout's first prompt


@pytest.mark.parametrize("status, reason", [(429, "limit"), (500, "service"), (401, "auth")])
def test_a_failed_turn_shows_its_error(codex, codex_server: ResponsesServer, status: int, reason: str) -> None:
    """Codex sends no hook when a turn fails (0.169.0 has no StopFailure); its rollout's `task_complete`
    carries the error kind, which lunavect shows as the error reason, with or without hooks."""
    from responses_server import error

    paths, iso, env = codex
    install_hooks(env)
    codex_server.script(error(status))
    proc = run_exec(paths, env, iso.work, "this will fail")
    assert proc.returncode != 0
    session = wait_session(env, lambda s: s["state"] == "error", timeout=30)
    assert session["error"] == reason and session["basis"] == ["rollout"]


def test_the_store_holds_no_reply_or_command_text_of_a_codex_session(codex, codex_server: ResponsesServer) -> None:
    """Hooks and rollouts both carry the reply and the command; none of it may reach lunavect's files.
    (The first prompt is the session's title, as Codex shows it: README, "Privacy".)"""
    paths, iso, env = codex
    install_hooks(env)
    codex_server.script(
        exec_command("echo okapi-command-3b9c"),
        message("Here is the ibis-reply-70d1 you asked for. Shall I continue?"),
    )
    proc = run_exec(paths, env, iso.work, "print a word")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ibis-reply-70d1" in rollouts(iso)[0].read_text()  # the secrets really passed through Codex
    session = wait_session(env, lambda s: s["state"] in ("ready", "input"), timeout=30)
    assert session["title"] == "print a word"
    written = assert_kept_out(env["LUNAVECT_HOME"], b"okapi-command-3b9c", b"ibis-reply-70d1")
    assert any(p.name == "lunavect.sqlite3" for p in written)
