"""Real Claude Code 2.1.328 sessions seen without any hook: from the live catalog and the transcript only.

Each test removes lunavect's hooks from the isolated settings first, runs the real client against the
scripted model server, and reads states the way every front end does, through `lunavect list --json`
(which starts the collector in the isolated LUNAVECT_HOME; the iso cleanup stops it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from anthropic_server import AnthropicServer, RefusingPort, error, text, tool_use
from claude_hookless_support import lunavect_list, remove_hooks, session_of, wait_session
from claude_tmux import IsoHome


@pytest.fixture
def hookless(iso_home: IsoHome) -> IsoHome:
    remove_hooks(iso_home)
    return iso_home


def test_permission_busy_and_idle_from_the_catalog(hookless, claude_tmux, model_server: AnthropicServer):
    model_server.script(
        tool_use("Bash", {"command": "sleep 4; echo permitted > marker.txt", "description": "Wait, write"}),
        text("All done"),
    )
    claude = claude_tmux("--permission-mode", "default")
    session = session_of(claude)
    lunavect_list(hookless)  # the collector runs from here on

    claude.send_text("run the slow command")

    # The catalog may show the wait a tick before the transcript (which holds the title) is read.
    row = wait_session(hookless, session, lambda r: r["state"] == "permission" and not r["untitled"])
    assert "catalog" in row["basis"]
    assert row["pid"] == claude.pid()
    assert row["title"] == "run the slow command"  # the first prompt, as the client shows it
    assert row["cwd"] == str(hookless.work) and row["resume"].endswith(f"claude --resume {session}")

    claude.answer("Enter", until_gone=r"Do you want to proceed\?")
    row = wait_session(hookless, session, lambda r: r["state"] == "working")
    assert row["activity"] in ("Bash", "thinking") and row["since"] is not None

    claude.wait_for_screen("All done", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready")
    assert row["background"] == {}


def test_background_agent_runs_and_ends(hookless, claude_tmux, model_server: AnthropicServer):
    model_server.script(
        tool_use(
            "Agent",
            {
                "description": "Count sheep",
                "prompt": "Count the sheep",
                "subagent_type": "general-purpose",
                "run_in_background": True,
            },
        ),
        text("Launched the counter"),
        text("The counter finished"),
    )
    model_server.script(text("Sheep counted: 3", delay=8), route="subagent")
    claude = claude_tmux("--permission-mode", "default", "--allowedTools", "Agent")
    session = session_of(claude)
    lunavect_list(hookless)

    claude.send_text("count the sheep in the background")

    row = wait_session(hookless, session, lambda r: r["state"] == "background")
    assert row["background"] == {"agent": 1}
    assert row["since"] is not None
    claude.wait_for_screen("The counter finished", timeout=60)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and r["background"] == {})

    from lunavect import store
    from lunavect.clients.claude.files_source import background_tasks

    conn = store.connect(hookless.lunavect_home / "lunavect.sqlite3")
    try:
        (agent,) = background_tasks(conn, session)
    finally:
        conn.close()
    assert (agent.kind, agent.state, agent.background, agent.agent_type) == (
        "agent",
        "completed",
        True,
        "general-purpose",
    )
    assert agent.finished_at > agent.started_at


def test_claude_started_from_another_sessions_bash_is_not_listed(
    hookless, claude_tmux, client_paths, model_server: AnthropicServer
):
    model_server.script(
        tool_use("Bash", {"command": "claude -p 'nested hello'; echo nested-exit=$?", "description": "Nested"}),
        text("nested reply", delay=4),  # the nested runtime's own request: it lives a few seconds
        text("outer done"),
    )
    path = str(client_paths.claude.parent) + ":" + hookless.env["PATH"]
    claude = claude_tmux("--permission-mode", "default", "--allowedTools", "Bash", env={"PATH": path})
    outer = session_of(claude)
    lunavect_list(hookless)

    claude.send_text("run claude inside")

    claude.wait_for_screen("outer done", timeout=60)
    model_server.wait_for(lambda r: r.last_user_text().strip().endswith("nested hello"), timeout=5)
    transcripts = {p.stem for p in hookless.transcripts()}
    nested = transcripts - {outer}
    assert len(nested) == 1, transcripts  # the nested run did write its own session
    (nested_id,) = nested
    wait_session(hookless, outer, lambda r: r["state"] == "ready")
    rows = lunavect_list(hookless, "--all")
    assert nested_id not in {r["session_id"] for r in rows}
    counts = json.loads(
        subprocess.run(
            [sys.executable, "-m", "lunavect", "counts", "--json"],
            env=hookless.env,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    assert counts == {"working": 0, "awaiting_input": 0}


def test_file_rewritten_under_the_reader(hookless, claude_tmux, model_server: AnthropicServer):
    model_server.script(text("First answer"), text("Second answer", delay=2))
    claude = claude_tmux("--permission-mode", "default")
    session = session_of(claude)
    lunavect_list(hookless)

    claude.send_text("first question")
    claude.wait_for_screen("First answer", timeout=40)
    wait_session(hookless, session, lambda r: r["state"] == "ready" and r["title"] == "first question")

    # Rewritten in place while the client runs (a sync tool, an editor): same file, new bytes at its start.
    (transcript,) = [p for p in hookless.transcripts() if p.stem == session]
    inode = transcript.stat().st_ino
    body = transcript.read_bytes()
    renamed = json.dumps({"type": "custom-title", "customTitle": "Renamed under the reader", "sessionId": session})
    with open(transcript, "r+b") as f:
        f.write(renamed.encode() + b"\n" + body)
    assert transcript.stat().st_ino == inode

    claude.send_text("second question")
    row = wait_session(hookless, session, lambda r: r["state"] == "working")
    claude.wait_for_screen("Second answer", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and r["title"] == "Renamed under the reader")
    assert row["since"] is None


def test_a_refused_connection_is_unreachable_without_hooks(hookless, claude_print):
    """The transcript alone says why: the client writes `server_error`, its text names ECONNREFUSED."""
    with RefusingPort() as refusing:
        proc = claude_print("hello there", base_url=refusing.url, max_retries=0)
    assert proc.returncode != 0
    (transcript,) = hookless.transcripts()
    row = wait_session(hookless, transcript.stem, lambda r: r["state"] == "error")
    assert row["error"] == "unreachable" and row["basis"] == ["transcript"]


def test_first_request_refused_shows_the_error_without_hooks(hookless, claude_print, model_server: AnthropicServer):
    model_server.script(error(429))
    proc = claude_print("hello there", max_retries=0)
    assert proc.returncode != 0
    (transcript,) = hookless.transcripts()
    row = wait_session(hookless, transcript.stem, lambda r: r["state"] == "error")
    assert row["error"] == "limit" and row["basis"] == ["transcript"]
    import msgspec

    from lunavect import store
    from lunavect.clients.claude.summary import TranscriptSummary

    conn = store.connect(hookless.lunavect_home / "lunavect.sqlite3")
    try:
        (data,) = conn.execute(
            "SELECT summary FROM claude_transcript WHERE session_id = ?", (transcript.stem,)
        ).fetchone()
    finally:
        conn.close()
    summary = msgspec.json.decode(data, type=TranscriptSummary)
    assert (summary.first_response.outcome, summary.first_response.error_code) == ("error", "rate_limit")
    assert summary.entrypoint == "sdk-cli" and summary.version == "2.1.328"
