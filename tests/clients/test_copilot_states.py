"""The real interactive GitHub Copilot CLI 1.0.102 under tmux against the scripted Chat Completions API, watched by
lunavect.

A person types into the client (`send-keys -l`, then Enter), answers its approval with keys, presses Esc, or kills
it; lunavect must show each state its hooks and its events file give, and never leave a failed, cancelled or
killed session working. What each test observed is in NOTES.md.
"""

from __future__ import annotations

import os
import signal

import pytest
from chat_server import ChatServer, error, hang, reply, tool_call
from copilot_harness import (
    QUESTION_RE,
    ask_user,
    at_the_marker_permission,
    running_the_long_command,
    sessions,
    shell,
    start_copilot,
    wait_session,
    without_hooks,
)
from lunavect_probe import assert_kept_out


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "events-file-only"])
def test_a_reply_is_ready_with_its_title_and_usage(copilot, chat_server: ChatServer, hooks: bool) -> None:
    """Without hooks the events file alone gives the title, the reply's end and its usage, and the live registry
    the process."""
    command, iso, env = copilot
    if not hooks:
        without_hooks(iso)
    chat_server.script(reply("Hello from the script", usage={"prompt_tokens": 1000, "completion_tokens": 7}))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("Hello from the script", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert (ready["title"], ready["basis"]) == ("say hello", ["hook"] if hooks else ["transcript"])
        assert ready["usage"]["tokens"]["output"] == 7 and ready["usage"]["model"] == "gpt-4.1"
        # The native binary, not npm's node launcher: its hooks' parent, or the process its lock file names.
        assert ready["pid"] == client.pid() and ready["open"] is True
        assert ready["resume"].endswith(f"copilot --resume {ready['session_id']}")
    finally:
        client.kill()


def test_a_running_tool_is_working_on_it(copilot, chat_server: ChatServer) -> None:
    with running_the_long_command(copilot, chat_server) as (_client, working):
        assert (working["state"], working["activity"]) == ("working", "bash") and "hook" in working["basis"]


def test_a_permission_approved_is_working_then_ready(copilot, chat_server: ChatServer) -> None:
    """Its `notification` (`permission_prompt`) is the wait; nothing fires at the approval: the tool's end does."""
    env = copilot[2]
    with at_the_marker_permission(copilot, chat_server, after="Marker written") as (client, marker, asking):
        assert (asking["waiting_for"], asking["basis"]) == ("bash", ["hook"])

        client.send_keys("1")  # "1. Yes"

        client.wait_for_screen("Marker written", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["basis"] == ["hook"] and marker.exists()
        # Its hooks' records and the events file's reading keep no reply, prompt or command text (README
        # "Privacy"; the first prompt is the session's title, as for every client).
        assert_kept_out(env["LUNAVECT_HOME"], b"Marker written", b"touch ", str(marker).encode())


def test_a_permission_denied_with_esc_is_idle_from_the_events_file(copilot, chat_server: ChatServer) -> None:
    """No hook fires when Esc dismisses the approval: the events file's `abort` ends the turn."""
    env = copilot[2]
    with at_the_marker_permission(copilot, chat_server) as (client, marker, _asking):
        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=30)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
        assert not marker.exists() and len(chat_server.main_requests()) == 1


def test_a_permission_denied_with_feedback_goes_on_to_the_reply(copilot, chat_server: ChatServer) -> None:
    """ "No, and tell Copilot what to do differently": the denied tool's result in the events file ends the wait,
    the turn goes on to its reply."""
    env = copilot[2]
    with at_the_marker_permission(copilot, chat_server, after="Not made then") as (client, marker, _asking):
        client.send_keys("3")
        client.send_text_raw("leave it")
        client.send_keys("Enter")

        client.wait_for_screen("Not made then", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["basis"] == ["hook"] and not marker.exists()


def test_a_question_is_input_needed_until_answered(copilot, chat_server: ChatServer) -> None:
    command, iso, env = copilot
    chat_server.script(ask_user("Which colour?", "red", "blue"), reply("Red it is"))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("ask me")
        client.wait_for_screen(QUESTION_RE, timeout=60)
        asking = wait_session(env, lambda s: s["state"] == "input", timeout=40)
        assert (asking["waiting_for"], asking["basis"]) == ("elicitation", ["hook"])

        client.send_keys("Enter")  # "red" is preselected

        client.wait_for_screen("Red it is", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["session_id"] == asking["session_id"]
    finally:
        client.kill()


@pytest.mark.parametrize(
    ("status", "shown", "reason"),
    [(400, "Scripted failure of the model", "other"), (403, "Authentication failed", "auth")],
)
def test_an_api_error_is_an_error_with_its_reason(copilot, chat_server: ChatServer, status, shown, reason) -> None:
    """No hook says a turn failed (`errorOccurred` fires for every failed request, retried ones too, and no
    `agentStop` follows): the events file's `session.error` does, with its status. (A 401, a 429 and a 5xx are
    retried, five times over a minute.)"""
    command, iso, env = copilot
    chat_server.script(error(status, "Scripted failure of the model"))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen(shown, timeout=60)
        failed = wait_session(env, lambda s: s["state"] not in ("working", "idle"), timeout=40)
        assert (failed["state"], failed["error"], failed["basis"]) == ("error", reason, ["transcript"])
        assert len(chat_server.main_requests()) == 1  # not retried
    finally:
        client.kill()


def test_a_double_esc_while_the_model_answers_is_idle_from_the_live_registry(copilot, chat_server: ChatServer) -> None:
    """Esc twice before any answer takes the prompt back into the input row and rewrites the events file without
    it: no hook and no record says so, the live registry's `working: false` does."""
    command, iso, env = copilot
    chat_server.script(hang())
    client = start_copilot(command, iso, env)
    try:
        client.send_text("think long")
        wait_session(env, lambda s: s["state"] == "working", timeout=40)
        chat_server.wait_for_main(1, timeout=40)  # its prompt hooks have run: the model answers now

        client.interrupt("edit prompt")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert (after["state"], after["basis"]) == ("idle", ["catalog"])
        assert client.input_row() == "think long"
    finally:
        client.kill()


def test_a_double_esc_during_a_running_tool_is_idle(copilot, chat_server: ChatServer) -> None:
    """No hook fires: the events file's `abort` ends the turn, and the tool's command is never answered."""
    env = copilot[2]
    with running_the_long_command(copilot, chat_server, reply("should not come")) as (client, _working):
        client.interrupt()

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle"
        assert len(chat_server.main_requests()) == 1


def test_kill_9_is_not_left_working(copilot, chat_server: ChatServer) -> None:
    env = copilot[2]
    with running_the_long_command(copilot, chat_server, seconds=90) as (client, working):
        assert working["pid"] == client.pid()

        os.kill(client.pid(), signal.SIGKILL)

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle" and "process" in after["basis"]
        assert wait_session(env, lambda s: s["open"] is False, timeout=20)["session_id"] == working["session_id"]


def test_exit_then_resume_continues_the_same_row(copilot, chat_server: ChatServer) -> None:
    """`/exit` fires `sessionEnd`: the row stays ready and is no longer open; `copilot --resume <id>` goes on in the
    same session."""
    command, iso, env = copilot
    chat_server.script(reply("First reply"), reply("Second reply"))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("first question")
        client.wait_for_screen("First reply", timeout=60)
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        client.send_text("/exit")
        client.wait_for_screen(r"copilot --resume=", timeout=40)
        first = wait_session(env, lambda s: s["open"] is False, timeout=40)
        assert first["state"] == "ready"
    finally:
        client.kill()
    # The resume command lunavect shows, word for word.
    again = start_copilot(command, iso, env, "--resume", first["session_id"], name="again")
    try:
        again.send_text("second question")
        again.wait_for_screen("Second reply", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready" and s["open"], timeout=40)
        assert ready["session_id"] == first["session_id"] and ready["title"] == "first question"
        assert ready["pid"] == again.pid()
        assert [row["session_id"] for row in sessions(env)] == [first["session_id"]]
    finally:
        again.kill()


def test_compact_is_compacting_until_its_record(copilot, chat_server: ChatServer) -> None:
    """`/compact` fires `preCompact` and no hook at its end: the events file's `session.compaction_complete`
    ends it. The summary is one model request, held back six seconds."""
    command, iso, env = copilot
    chat_server.script(reply("First reply"), reply("A summary", delay=6))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("first question")
        client.wait_for_screen("First reply", timeout=60)
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)

        client.send_text("/compact")

        compacting = wait_session(env, lambda s: s["state"] != "ready", timeout=30)
        assert (compacting["state"], compacting["basis"]) == ("compacting", ["hook"])
        after = wait_session(env, lambda s: s["state"] != "compacting", timeout=40)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
    finally:
        client.kill()


def test_a_sub_agent_stays_out_of_the_rows(copilot, chat_server: ChatServer) -> None:
    """Its `task` tool runs a sub-agent in the session's own process and events file; the sub-agent's own hooks
    name it as their session: the list keeps one row, the main session's, ready once the main turn ends."""
    command, iso, env = copilot
    task = {"description": "Look around", "prompt": "Say done", "agent_type": "explore", "name": "looker"}
    chat_server.script(tool_call("task", task), reply("Sub done"), reply("Main done"))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("delegate")
        client.wait_for_screen("Main done", timeout=90)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert [row["session_id"] for row in sessions(env)] == [ready["session_id"]]
        assert len(chat_server.main_requests()) == 3
    finally:
        client.kill()


def test_without_hooks_the_events_file_gives_an_api_error_and_a_cancel(copilot, chat_server: ChatServer) -> None:
    command, iso, env = copilot
    without_hooks(iso)
    chat_server.script(error(403, "Scripted failure of the model"), shell("sleep 60"), reply("should not come"))
    client = start_copilot(command, iso, env, "--allow-all-tools")
    try:
        client.send_text("say hello")
        client.wait_for_screen("Authentication failed", timeout=60)
        failed = wait_session(env, lambda s: s["state"] == "error", timeout=40)
        assert (failed["error"], failed["basis"]) == ("auth", ["transcript"])

        client.send_text("run the long command")
        wait_session(env, lambda s: s["activity"] == "bash", timeout=40)
        client.interrupt()

        after = wait_session(env, lambda s: s["state"] != "working", timeout=40)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
    finally:
        client.kill()


def test_nothing_private_is_kept(copilot, chat_server: ChatServer) -> None:
    """Prompts (but the first, the session's title), replies, commands, a question and its answer reach no file
    lunavect writes: its store, its spool, its logs (README "Privacy")."""
    command, iso, env = copilot
    chat_server.script(
        reply("Reply KAPPA-1"),
        ask_user("Question LAMBDA-2?", "answer-MU-3", "other"),
        shell("echo NU-4"),
        reply("Done XI-5"),
    )
    client = start_copilot(command, iso, env, "--allow-all-tools")
    try:
        client.send_text("first prompt is the title")
        client.wait_for_screen("Reply KAPPA-1", timeout=60)
        client.send_text("second prompt OMICRON-6")
        client.wait_for_screen(QUESTION_RE, timeout=60)
        client.send_keys("Enter")
        client.wait_for_screen("Done XI-5", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready" and s["usage"] is not None, timeout=40)
        assert ready["title"] == "first prompt is the title"
        written = assert_kept_out(
            env["LUNAVECT_HOME"], b"KAPPA", b"LAMBDA", b"answer-MU", b"NU-4", b"XI-5", b"OMICRON", b"echo "
        )
        assert any(path.name.startswith("lunavect.sqlite3") for path in written)
        assert any("spool" in path.parts for path in written)
    finally:
        client.kill()
