"""Every Claude Code state, as the real client shows it, read through `lunavect list --json`.

Each scenario scripts the model, drives the real Claude Code 2.1.328 under tmux as a person does, and
asserts the timeline of states lunavect reported. The scenarios that test_claude_http_hooks.py runs again with
HTTP hooks live in tests/support/claude_states_scenarios.py and are collected here too.
"""

from __future__ import annotations

import time

import pytest
from anthropic_server import RefusingPort, error, hang, text, tool_use
from claude_states_scenarios import *  # noqa: F403 - the scenarios that run with both kinds of hooks, collected here
from claude_states_scenarios import PERMISSION_DIALOG, counts
from lunavect_probe import Timeline, list_sessions, wait_for, wait_state

# -- background work --------------------------------------------------------------------------------------


def test_a_dev_server_in_the_background_does_not_hold_the_response(claude_tmux, model_server, iso_home):
    model_server.script(
        tool_use(
            "Bash",
            {
                "command": "python3 -m http.server 0 --bind 127.0.0.1",
                "description": "serve the folder",
                "run_in_background": True,
            },
        ),
        text("The server is running."),
    )
    # acceptEdits: auto mode would ask the person first (its safety check cannot reach the scripted server).
    claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")
    claude.send_text("serve it")
    timeline = Timeline()

    wait_state(iso_home.env, "ready", timeline=timeline, timeout=40)
    time.sleep(2)
    assert list_sessions(iso_home.env)[0]["state"] == "ready"
    assert "background" not in timeline.states, timeline


# -- permission -------------------------------------------------------------------------------------------

# A command that runs for a while once approved (2.1.328 runs no bare `sleep` as a tool call: FACTS.md).
LONG_COMMAND = "python3 -c 'import time; time.sleep(20)' && echo done > marker.txt"


def test_a_permission_approved_in_the_pane_works_on_its_command_until_it_ends(claude_tmux, model_server, iso_home):
    """Approved in the pane, the command runs for 20 s and no hook fires until it ends: Claude Code's live
    catalog says `busy` from the approval, and so must lunavect (issue 48, item 1)."""
    model_server.script(tool_use("Bash", {"command": LONG_COMMAND, "description": "load test"}), text("Done."))
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("run the load test")
    wait_state(iso_home.env, "permission", timeout=30)
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)

    claude.answer("Enter", until_gone=PERMISSION_DIALOG)
    approved = time.monotonic()
    working = wait_for(iso_home.env, lambda s: s["state"] != "permission", timeout=5)
    assert (working["state"], working["activity"]) == ("working", "Bash"), working
    assert counts(iso_home.env)["awaiting_input"] == 0
    marker = iso_home.work / "marker.txt"
    seen = []
    while not marker.exists():
        session = list_sessions(iso_home.env)[0]
        if not marker.exists():
            seen.append((round(time.monotonic() - approved, 1), session["state"], session["activity"]))
        assert time.monotonic() - approved < 60, seen
    assert seen and all(state == "working" and activity == "Bash" for _, state, activity in seen), seen
    assert seen[-1][0] >= 15, seen  # watched through the command's run
    wait_state(iso_home.env, "ready", timeout=30)


# -- closing questions ------------------------------------------------------------------------------------


# -- API failures -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "reason"),
    [(401, "auth"), (429, "limit"), (500, "service"), (529, "service")],
)
def test_api_failures_end_in_error_with_their_reason(claude_tmux, model_server, iso_home, status, reason):
    model_server.script(error(status))
    claude = claude_tmux()
    claude.send_text("hello")
    session = wait_state(iso_home.env, "error", timeout=40)
    assert session["error"] == reason


def test_connection_refused_is_unreachable(claude_tmux, iso_home):
    with RefusingPort() as refusing:
        claude = claude_tmux(base_url=refusing.url)
        claude.send_text("hello")
        session = wait_state(iso_home.env, "error", timeout=60)
    assert session["error"] == "unreachable"


# -- compaction -------------------------------------------------------------------------------------------


def test_manual_compact_shows_compacting_then_idle(claude_tmux, model_server, iso_home):
    model_server.script(text("First answer."), text("Summary of the conversation.", delay=3))
    claude = claude_tmux()
    claude.send_text("hello")
    wait_state(iso_home.env, "ready", timeout=30)
    claude.send_text("/compact")
    timeline = Timeline()
    compacting = wait_state(iso_home.env, "compacting", timeline=timeline, timeout=30)
    assert compacting["since"] is not None
    wait_state(iso_home.env, "idle", timeline=timeline, timeout=40)


def test_automatic_compaction_keeps_the_running_responses_start(claude_tmux, model_server, iso_home):
    # A reply that reports a nearly full context makes the client compact automatically when the next
    # prompt arrives (the smallest auto-compact window it accepts is 100k tokens).
    full = text("First answer.")
    full.input_tokens = 99_000
    model_server.script(full, text("Summary of the conversation.", delay=4), text("Second answer."))
    claude = claude_tmux(env={"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"})
    claude.send_text("first")
    wait_state(iso_home.env, "ready", timeout=30)
    claude.send_text("second")
    timeline = Timeline()
    compacting = wait_state(iso_home.env, "compacting", timeline=timeline, timeout=30)
    settled = wait_for(iso_home.env, lambda s: s["state"] != "compacting", timeline=timeline, timeout=40)
    assert settled["state"] in ("working", "ready"), timeline
    # The compaction ran inside the second response: its timer is that response's, which began with the
    # prompt, before the compaction started.
    assert compacting["since"] is not None
    assert compacting["since"] <= settled["updated"]


# -- interrupts and crashes -------------------------------------------------------------------------------


def test_esc_while_thinking_does_not_leave_it_working(claude_tmux, model_server, iso_home):
    model_server.script(hang())
    claude = claude_tmux()
    claude.send_text("think hard")
    wait_for(iso_home.env, lambda s: s["state"] == "working", timeout=30)
    time.sleep(1)
    claude.send_keys("Escape")
    settled = wait_for(iso_home.env, lambda s: s["state"] != "working", timeout=40)
    assert settled["state"] in ("idle", "ready"), settled


# -- several sessions -------------------------------------------------------------------------------------
