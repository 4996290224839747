"""The real OpenCode 1.18.33 under tmux, watched by lunavect through its plugin (installed by `lunavect hooks
install`, as the iso fixture does) and its database: every state of the list OpenCode gives the evidence for."""

from __future__ import annotations

import json
import os
import shutil
import signal

import pytest
from chat_server import ChatServer, bash, error, hang, reply, tool_call
from codex_harness import lunavect
from lunavect_probe import Timeline, assert_kept_out, list_sessions, store_events, wait_for
from opencode_harness import (
    PERMISSION_RE,
    QUESTION_RE,
    ensure_opencode,
    opencode_env,
    prepare,
    start_tui,
    without_plugin,
)
from unit_support import wait_until

QUESTION = {
    "questions": [
        {
            "question": "Which colour?",
            "header": "Colour",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
        }
    ]
}


@pytest.fixture
def opencode(iso_home):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    command = ensure_opencode()
    return command, iso_home, opencode_env(iso_home, command)


def _waits(env, predicate, timeline=None, timeout=40):
    return wait_for(env, lambda s: s["provider"] == "opencode" and predicate(s), timeout=timeout, timeline=timeline)


def _plugin_said(env, kind: str, session_id: str, timeout: float = 20) -> None:
    """Wait until the store holds the plugin's event `kind` for the session (the database's are Transcript*)."""
    wait_until(lambda: (kind, session_id) in store_events(env), f"the plugin's {kind} in the store", timeout)


def test_a_reply_a_tool_and_permissions_answered_and_refused(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server, permission={"bash": "ask"})
    marker = iso.work / "marker.txt"
    chat_server.script(
        reply("Hello there"),
        bash(f"python3 -c 'import time; time.sleep(4)'; touch {marker}"),
        reply("Marker written"),
        bash(f"touch {marker}.refused"),
    )
    tui = start_tui(command, iso, env)
    try:
        tui.send_text("say hello")
        tui.wait_for_screen(r"Hello there")
        ready = _waits(env, lambda s: s["state"] == "ready" and s["title"] == "Scripted title")
        assert ready["id"] == f"opencode:{ready['session_id']}" and ready["session_id"].startswith("ses_")
        assert ready["cwd"] == str(iso.work)
        assert ready["pid"] == tui.pid() and ready["tty"] == tui.pane_tty()
        assert ready["resume"] == f"cd {iso.work} && opencode --session {ready['session_id']}"
        assert ready["basis"] == ["hook"]
        typed = lunavect(env, "reply", ready["session_id"], "never typed")
        assert typed.returncode != 0 and "does not type into OpenCode's prompt" in typed.stdout + typed.stderr, typed

        timeline = Timeline()
        tui.send_text("write the marker")
        tui.wait_for_screen(PERMISSION_RE)
        asking = _waits(env, lambda s: s["state"] == "permission", timeline)
        assert asking["waiting_for"] == "bash" and asking["since"] is not None
        assert json.loads(lunavect(env, "counts", "--json").stdout)["awaiting_input"] == 1
        answered = lunavect(env, "answer", ready["session_id"], "allow")
        assert answered.returncode != 0 and "answered in OpenCode itself" in answered.stderr, answered
        tui.answer("Enter", until_gone=PERMISSION_RE)
        # Approved: the command runs (OpenCode says so; the tool's end comes seconds later).
        _waits(env, lambda s: s["state"] == "working" and s["activity"] == "bash", timeline)
        tui.wait_for_screen(r"Marker written")
        _waits(env, lambda s: s["state"] == "ready", timeline)
        assert marker.exists()
        assert timeline.states == ["permission", "working", "ready"], timeline

        tui.send_text("try again")
        tui.wait_for_screen(PERMISSION_RE)
        _waits(env, lambda s: s["state"] == "permission")
        tui.answer("Right", "Right", "Enter", until_gone=PERMISSION_RE)
        refused = _waits(env, lambda s: s["state"] == "idle")
        assert refused["session_id"] == ready["session_id"]
        assert not (iso.work / "marker.txt.refused").exists()
        # The plugin's records and the database's reads keep no prompt, reply or command text (README "Privacy").
        assert_kept_out(
            iso.env["LUNAVECT_HOME"],
            b"say hello",
            b"Hello there",
            b"write the marker",
            b"Marker written",
            b"marker.txt",
        )
    finally:
        tui.kill()


def test_a_running_tool_then_a_question_answered_and_dismissed(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server)
    chat_server.script(
        bash("python3 -c 'import time; time.sleep(6)'"),
        reply("Slept"),
        tool_call("question", QUESTION),
        reply("Red it is"),
        tool_call("question", QUESTION),
    )
    tui = start_tui(command, iso, env)
    try:
        timeline = Timeline()
        tui.send_text("sleep a while")
        working = _waits(env, lambda s: s["state"] == "working" and s["activity"] == "bash", timeline)
        assert working["since"] is not None
        _waits(env, lambda s: s["state"] == "ready", timeline)
        assert timeline.states[-2:] == ["working", "ready"], timeline

        tui.send_text("ask me")
        tui.wait_for_screen(QUESTION_RE)
        asking = _waits(env, lambda s: s["state"] == "input")
        assert asking["waiting_for"] == "elicitation"
        tui.answer("Enter", until_gone=QUESTION_RE)
        tui.wait_for_screen(r"Red it is")
        _waits(env, lambda s: s["state"] == "ready")

        tui.send_text("ask me again")
        tui.wait_for_screen(QUESTION_RE)
        _waits(env, lambda s: s["state"] == "input")
        tui.answer("Escape", until_gone=QUESTION_RE)
        _waits(env, lambda s: s["state"] == "idle")
    finally:
        tui.kill()


def test_api_errors_retries_and_esc(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server)
    chat_server.script(error(401, "bad key"), error(429), reply("After the retry"), hang())
    tui = start_tui(command, iso, env)
    try:
        tui.send_text("fail please")
        failed = _waits(env, lambda s: s["state"] == "error")
        assert failed["error"] == "auth"

        timeline = Timeline()
        tui.send_text("retry please")
        retrying = _waits(env, lambda s: s["activity"] == "retrying", timeline)
        # OpenCode names no reason for a provider's 429 (only for its own plans' limits): "other".
        assert retrying["state"] == "working" and retrying["error"] == "other", retrying
        tui.wait_for_screen(r"After the retry", timeout=60)
        _waits(env, lambda s: s["state"] == "ready", timeline)

        tui.send_text("hang please")
        _waits(env, lambda s: s["state"] == "working")
        # OpenCode interrupts on a second Esc while its first one's "esc again to interrupt" shows.
        tui.send_keys("Escape")
        tui.wait_for_screen(r"esc again to interrupt")
        tui.send_keys("Escape")
        interrupted = _waits(env, lambda s: s["state"] == "idle")
        # The plugin's event and the database's aborted reply both tell the Esc; whichever is read first ends
        # the turn (the database won on a loaded CI run). The plugin's own Interrupt must arrive all the same.
        assert interrupted["basis"] in (["hook"], ["transcript"]), interrupted
        _plugin_said(env, "Interrupt", interrupted["session_id"])
    finally:
        tui.kill()


def test_kill_9_during_a_turn_does_not_leave_it_working(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server)
    chat_server.script(hang())
    tui = start_tui(command, iso, env)
    try:
        tui.send_text("hang please")
        working = _waits(env, lambda s: s["state"] == "working")
        os.kill(tui.pid(), signal.SIGKILL)
        gone = _waits(env, lambda s: s["state"] != "working")
        assert gone["state"] == "idle" and "process" in gone["basis"], gone
        assert gone["session_id"] == working["session_id"]
    finally:
        tui.kill()


def test_the_database_read_right_with_the_plugin_off(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server)
    without_plugin(iso)
    sleep = "python3 -c 'import time; time.sleep(4)'"
    chat_server.script(
        bash(sleep),
        reply("Database reply", usage={"prompt_tokens": 3000, "completion_tokens": 40,
                                       "prompt_tokens_details": {"cached_tokens": 1000}}),
        error(401, "bad key"),
    )  # fmt: skip
    tui = start_tui(command, iso, env)
    try:
        tui.send_text("run the tool")
        # OpenCode writes a running tool's part as it starts: working on it, with no plugin.
        working = _waits(env, lambda s: s["state"] == "working" and s["activity"] == "bash")
        assert working["basis"] == ["transcript"], working
        tui.wait_for_screen(r"Database reply")
        ready = _waits(env, lambda s: s["state"] == "ready" and s["title"] == "Scripted title" and s["usage"])
        assert ready["basis"] == ["transcript"] and ready["cwd"] == str(iso.work), ready
        # Its tokens, both requests' (each message's `tokens`: input without the cached part); the context is the
        # last request's whole input.
        usage = ready["usage"]
        assert (usage["model"], usage["context"]) == ("m", 3000), usage
        assert usage["tokens"]["cache_read"] == 1000 and usage["tokens"]["output"] == 5 + 40, usage
        assert usage["tokens"]["input"] > 2000 and usage["subagents"]["input"] == 0, usage
        total = json.loads(lunavect(env, "usage", "--json", "--since", "1d").stdout)["total"]
        assert total["tokens"] == usage["tokens"], total
        assert ready["resume"] == f"cd {iso.work} && opencode --session {ready['session_id']}"
        shown = lunavect(env, "show", ready["id"], "--json")
        assert shown.returncode == 0, shown.stderr
        messages = json.loads(shown.stdout)["messages"]
        assert [(m["kind"], m.get("tool")) for m in messages] == [("prompt", None), ("tool", "bash"), ("text", None)]
        assert messages[1]["text"] == sleep and messages[2]["text"] == "Database reply"

        tui.send_text("fail please")
        failed = _waits(env, lambda s: s["state"] == "error")
        assert failed["error"] == "auth" and failed["basis"] == ["transcript"], failed
    finally:
        tui.kill()


def test_a_sub_agent_stays_out_of_the_rows_and_a_compaction_shows(opencode, chat_server: ChatServer) -> None:
    command, iso, env = opencode
    prepare(iso, chat_server)
    task = {"description": "look around", "prompt": "list the folder", "subagent_type": "general"}
    chat_server.script(
        tool_call("task", task),
        bash("python3 -c 'import time; time.sleep(3)'"),  # the sub-agent's own work
        reply("Child done"),
        reply("Parent done"),
        hang(),  # the compaction's summary
    )
    tui = start_tui(command, iso, env)
    try:
        tui.send_text("delegate it")
        working = _waits(env, lambda s: s["state"] == "working" and s["activity"] == "task")
        tui.wait_for_screen(r"Parent done", timeout=60)
        ready = _waits(env, lambda s: s["state"] == "ready")
        assert ready["session_id"] == working["session_id"]
        rows = [s for s in list_sessions(env) if s["provider"] == "opencode"]
        assert [s["session_id"] for s in rows] == [ready["session_id"]], rows  # the child session is internal

        tui.send_text("/compact", pause=1.0)
        compacting = _waits(env, lambda s: s["state"] == "compacting")
        assert compacting["session_id"] == ready["session_id"]
    finally:
        tui.kill()
