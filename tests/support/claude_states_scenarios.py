"""The Claude Code state scenarios that run twice: with the command shim (test_claude_states.py) and with HTTP
hooks (test_claude_http_hooks.py), each collected by importing them into its test module (`__all__`), whose
`iso_home` fixture sets the hooks up.

Each scenario scripts the model, drives the real Claude Code 2.1.328 under tmux as a person does, and asserts
the timeline of states lunavect reported.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from anthropic_server import text, tool_use
from lunavect_probe import Timeline, list_sessions, lunavect, wait_for, wait_state

__all__ = [  # the scenarios: a test module collects them with `from claude_states_scenarios import *`
    "test_auto_modes_own_dialog_needs_input_then_ends",
    "test_background_agent_holds_the_session_until_it_ends",
    "test_background_bash_is_background_with_one_shell_then_ready_after_its_notification",
    "test_closing_questions",
    "test_esc_during_a_tool_does_not_leave_it_working",
    "test_kill_9_during_a_tool_does_not_leave_it_working",
    "test_permission_prompt_approved",
    "test_permission_prompt_denied_does_not_stay_waiting",
    "test_two_sessions_in_one_folder_keep_their_own_states",
]

PERMISSION_DIALOG = r"Do you want to proceed\?"
# AUTO_MODE: in the client's default mode ("auto") a command such as `python3 -c ...` waits for the server-side
# safety check, which cannot reach the scripted server: a few seconds later the client opens its own dialog
# ("Auto mode can't check actions") and the command never runs (FACTS.md). A scenario that needs its tool to
# run for a while uses acceptEdits, or a loaded machine's first look can come after those few seconds.


def counts(env) -> dict:
    """`lunavect counts --json`, read."""
    done = lunavect(env, "counts", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def running_a_long_bash(claude_tmux, model_server, iso_home):
    """The real claude told to run a 30 s Bash command, once lunavect shows it running; the client."""
    model_server.script(
        tool_use("Bash", {"command": 'python3 -c "import time; time.sleep(30)"', "description": "long"}), text("never")
    )
    claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")  # see AUTO_MODE
    claude.send_text("run the long thing")
    wait_for(iso_home.env, lambda s: s["activity"] == "Bash", timeout=30)
    return claude


def test_background_bash_is_background_with_one_shell_then_ready_after_its_notification(
    claude_tmux, model_server, iso_home
):
    model_server.script(
        tool_use("Bash", {"command": "sleep 8", "description": "long job", "run_in_background": True}),
        text("Started it in the background."),
        text("The background job finished."),  # Claude wakes for the task notification
    )
    claude = claude_tmux("--allowedTools", "Bash")
    claude.send_text("start the job")
    timeline = Timeline()

    paused = wait_state(iso_home.env, "background", timeline=timeline, timeout=40)
    assert paused["background"] == {"shell": 1}
    assert paused["since"] is not None
    assert counts(iso_home.env)["working"] == 1
    wait_state(iso_home.env, "ready", timeline=timeline, timeout=60)
    assert "background" in timeline.states
    assert timeline.states[-1] == "ready"
    assert "ready" not in timeline.states[:-1], timeline  # ready arrives once, at the end


def test_background_agent_holds_the_session_until_it_ends(claude_tmux, model_server, iso_home):
    model_server.script(
        tool_use("Bash", {"command": "sleep 6", "description": "slow research"}),
        text("Research result: 42."),
        route="subagent",
    )
    model_server.script(
        tool_use(
            "Agent",
            {
                "description": "research",
                "prompt": "find the answer",
                "subagent_type": "general-purpose",
                "run_in_background": True,
            },
        ),
        text("I started a background agent."),
        text("The agent reported back."),
    )
    claude = claude_tmux("--allowedTools", "Bash", "Agent", "--permission-mode", "acceptEdits")
    claude.send_text("research this in the background")
    timeline = Timeline()

    paused = wait_for(
        iso_home.env,
        lambda s: s["state"] == "background" and s["background"].get("agent") == 1,
        timeline=timeline,
        timeout=60,
    )
    assert paused["activity"] is None
    wait_state(iso_home.env, "ready", timeline=timeline, timeout=90)
    assert timeline.states[-1] == "ready", timeline


def test_permission_prompt_approved(claude_tmux, model_server, iso_home):
    model_server.script(
        tool_use("Bash", {"command": "echo approved > marker.txt", "description": "write"}), text("Done.")
    )
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("print something")
    timeline = Timeline()

    waiting = wait_state(iso_home.env, "permission", timeline=timeline, timeout=30)
    assert waiting["waiting_for"] == "Bash"
    assert counts(iso_home.env)["awaiting_input"] == 1
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    claude.answer("Enter", until_gone=PERMISSION_DIALOG)
    wait_state(iso_home.env, "ready", timeline=timeline, timeout=30)
    assert timeline.states[0] in ("working", "permission") and "permission" in timeline.states


def test_permission_prompt_denied_does_not_stay_waiting(claude_tmux, model_server, iso_home):
    model_server.script(tool_use("Bash", {"command": "echo denied > marker.txt", "description": "write"}), text("OK."))
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("print something")
    timeline = Timeline()

    wait_state(iso_home.env, "permission", timeline=timeline, timeout=30)
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    claude.answer("Escape", until_gone=PERMISSION_DIALOG)
    settled = wait_for(
        iso_home.env, lambda s: s["state"] not in ("permission", "working"), timeline=timeline, timeout=40
    )
    assert settled["state"] in ("idle", "ready"), timeline
    assert counts(iso_home.env)["awaiting_input"] == 0


def test_auto_modes_own_dialog_needs_input_then_ends(claude_tmux, model_server, iso_home):
    # In auto mode, a server command needs the safety check, which cannot reach the scripted server: the
    # client asks its person to choose. No PermissionRequest fires; a Notification and the catalog say it.
    model_server.script(
        tool_use("Bash", {"command": "python3 -m http.server 0 --bind 127.0.0.1", "description": "serve"}),
        text("Done."),
    )
    claude = claude_tmux("--allowedTools", "Bash")
    claude.send_text("serve it")
    waiting = wait_state(iso_home.env, "input", timeout=40)
    assert waiting["waiting_for"] == "dialog"
    assert counts(iso_home.env)["awaiting_input"] == 1
    claude.wait_for_screen(r"Enter to stay in auto mode", timeout=20)
    claude.answer("Escape", until_gone=r"Enter to stay in auto mode")
    settled = wait_for(iso_home.env, lambda s: s["state"] not in ("input", "working"), timeout=40)
    assert settled["state"] in ("idle", "ready"), settled


@pytest.mark.parametrize(
    ("reply", "state"),
    [
        ("I updated the parser. Shall I apply these changes to the other modules?", "input"),
        ("Я обновил парсер. Применить эти изменения к остальным модулям?", "input"),
        ("Ich habe den Parser aktualisiert. Soll ich die Änderungen übernehmen?", "input"),
        ("I'll wait for the subagent to finish.", "ready"),
        ("Would you like me to:\n1. Fix all three handlers\n2. Only fix the upload handler", "input"),
        ("Done, all tests pass. Can I help with anything else?", "ready"),
        ("The helper now asks:\n\n```\nShall I delete 3 files? [y/N]\n```", "ready"),
    ],
    ids=["en", "ru", "de", "statement", "options", "pleasantry", "in-code"],
)
def test_closing_questions(claude_tmux, model_server, iso_home, reply, state):
    model_server.script(text(reply))
    claude = claude_tmux()
    claude.send_text("update the parser")
    session = wait_for(iso_home.env, lambda s: s["state"] in ("input", "ready"), timeout=30)
    assert session["state"] == state
    if state == "input":
        assert session["waiting_for"] == "question"
        assert counts(iso_home.env)["awaiting_input"] == 1


def test_esc_during_a_tool_does_not_leave_it_working(claude_tmux, model_server, iso_home):
    claude = running_a_long_bash(claude_tmux, model_server, iso_home)
    claude.send_keys("Escape")
    settled = wait_for(iso_home.env, lambda s: s["state"] != "working", timeout=30)
    assert settled["state"] in ("idle", "ready"), settled


def test_kill_9_during_a_tool_does_not_leave_it_working(claude_tmux, model_server, iso_home):
    claude = running_a_long_bash(claude_tmux, model_server, iso_home)
    os.kill(claude.pid(), signal.SIGKILL)
    settled = wait_for(iso_home.env, lambda s: s["state"] != "working", timeout=20)
    assert settled["state"] == "idle"
    assert "process" in settled["basis"]
    assert counts(iso_home.env)["working"] == 0


def test_two_sessions_in_one_folder_keep_their_own_states(claude_tmux, model_server, iso_home):
    model_server.script(
        text("Quick answer."),
        tool_use("Bash", {"command": 'python3 -c "import time; time.sleep(20)"', "description": "slow"}),
        text("x"),
    )
    first = claude_tmux()
    first.send_text("quick question")
    wait_state(iso_home.env, "ready", timeout=30)
    second = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")  # see AUTO_MODE
    second.send_text("slow job")

    def both(sessions):
        states = sorted((s["state"], s["activity"]) for s in sessions)
        return states == [("ready", None), ("working", "Bash")]

    deadline = time.monotonic() + 40
    while True:
        sessions = list_sessions(iso_home.env)
        if both(sessions):
            break
        assert time.monotonic() < deadline, sessions
        time.sleep(0.3)
    by_pid = {s["pid"]: s for s in sessions}
    assert by_pid[first.pid()]["state"] == "ready"
    assert by_pid[second.pid()]["state"] == "working"
    assert len({s["session_id"] for s in sessions}) == 2
    assert counts(iso_home.env) == {"working": 1, "awaiting_input": 0}
