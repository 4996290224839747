"""Every session has the title its client shows, with the real Claude Code 2.1.328 and Codex 0.169.0: a first
prompt that is a slash command with arguments, a pasted file, a session renamed in the client, a session
resumed later. Read without hooks, from the clients' own files, through `lunavect list --json`."""

from __future__ import annotations

import time

import pytest
from anthropic_server import text
from claude_tmux import IsoHome
from test_claude_files import lunavect_list, remove_hooks, session_of, wait_session


@pytest.fixture
def hookless(iso_home: IsoHome) -> IsoHome:
    remove_hooks(iso_home)
    return iso_home


def test_a_slash_command_then_a_rename_then_a_resume(hookless, claude_tmux, model_server):
    commands = hookless.work / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review this code carefully: $ARGUMENTS\n")
    model_server.script(text("Reviewed."), text("Second."), text("Third."))
    claude = claude_tmux("--permission-mode", "acceptEdits")
    session = session_of(claude)
    lunavect_list(hookless)

    claude.send_text("/review the parser module")
    claude.wait_for_screen("Reviewed.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and not r["untitled"])
    assert row["title"] == "/review the parser module"  # the command and its arguments, as the client shows

    claude.send_text("/rename Parser review")
    claude.wait_for_screen("Session renamed to: Parser review", timeout=20)
    wait_session(hookless, session, lambda r: r["title"] == "Parser review")

    claude.send_text("/exit")
    deadline = time.monotonic() + 20
    while hookless.catalog() and time.monotonic() < deadline:
        time.sleep(0.2)
    resumed = claude_tmux("--permission-mode", "acceptEdits", "--resume", session)
    resumed.send_text("after the resume")
    resumed.wait_for_screen("Second.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and r["pid"] == resumed.pid())
    assert row["title"] == "Parser review"  # the resumed session keeps the name the person gave it


def test_a_pasted_file_as_the_first_prompt(hookless, claude_tmux, model_server):
    model_server.script(text("Pasted ok."))
    claude = claude_tmux("--permission-mode", "acceptEdits")
    session = session_of(claude)
    body = "\n".join(f"line {i} of the pasted file" for i in range(30))
    claude.tmux("set-buffer", "--", body)
    claude.tmux("paste-buffer", "-p", "-t", claude.target)
    claude.wait_for_screen(r"Pasted text", timeout=20)
    time.sleep(1)  # the Enter after a paste must not be part of it
    claude.send_keys("Enter")
    claude.wait_for_screen("Pasted ok.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and not r["untitled"])
    assert row["title"] == "line 0 of the pasted file"
