"""The real interactive Pi 0.73.1 under tmux against the scripted Chat Completions API, watched by lunavect through
its extension (installed by `lunavect hooks install`, as the iso fixture does) and its session files.

A person types into the client (`send-keys -l`, then Enter), presses Esc, or kills it; lunavect must show each
state the extension and the session file give, and never leave a failed, cancelled or killed session working.
What each test observed is in NOTES.md.
"""

from __future__ import annotations

import os
import signal

import pytest
from chat_server import ChatServer, Step, error, hang, reply, tool_call
from codex_harness import lunavect
from lunavect_probe import assert_kept_out
from pi_harness import sessions, start_pi, wait_session, without_extension


def shell(command: str) -> Step:
    """A call of Pi's `bash` tool: the real client runs `command` (Pi asks no approval)."""
    return tool_call("bash", {"command": command})


@pytest.mark.parametrize("extension", [True, False], ids=["extension", "session-file-only"])
def test_a_reply_is_ready_with_its_title_and_usage(pi, chat_server: ChatServer, extension: bool) -> None:
    command, iso, env = pi
    if not extension:
        without_extension(iso)
    chat_server.script(reply("Hello from the script", usage={"prompt_tokens": 1000, "completion_tokens": 7}))
    client = start_pi(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("Hello from the script", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["title"] == "say hello" and ready["cwd"] == str(iso.work)
        assert ready["id"] == f"pi:{ready['session_id']}"
        assert ready["usage"]["tokens"]["output"] == 7 and ready["usage"]["model"] == "m"
        if extension:
            assert ready["basis"] == ["hook"]
            assert ready["pid"] == client.pid() and ready["tty"] == client.pane_tty()
        assert ready["resume"] == f"cd {iso.work} && pi --session {ready['session_id']}"
    finally:
        client.kill()


@pytest.mark.parametrize("extension", [True, False], ids=["extension", "session-file-only"])
def test_a_running_tool_is_working_on_it_then_ready(pi, chat_server: ChatServer, extension: bool) -> None:
    """The extension's `tool_execution_start` names the tool as it starts; without it the session file's
    assistant entry (its `toolCall`) does, once the model's step is written."""
    command, iso, env = pi
    if not extension:
        without_extension(iso)
    marker = iso.work / "marker"
    chat_server.script(shell(f"sleep 8; touch {marker}"), reply("Slept well"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("run the long command")
        working = wait_session(env, lambda s: s["activity"] == "bash", timeout=40)
        assert working["state"] == "working"
        assert working["basis"] == (["hook"] if extension else ["transcript"])
        client.wait_for_screen("Slept well", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["activity"] is None and marker.exists()
    finally:
        client.kill()


@pytest.mark.parametrize("extension", [True, False], ids=["extension", "session-file-only"])
@pytest.mark.parametrize(("status", "reason"), [(400, "other"), (401, "auth")])
def test_an_api_error_is_an_error_with_its_reason(pi, chat_server: ChatServer, status, reason, extension) -> None:
    """Pi ends the prompt (`agent_end`) after an assistant message with `stopReason: "error"` and
    `errorMessage: "<status> <words>"`: only the status is kept."""
    command, iso, env = pi
    if not extension:
        without_extension(iso)
    chat_server.script(error(status, "Scripted failure of the model RHO-7"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("RHO-7", timeout=60)
        failed = wait_session(env, lambda s: s["state"] not in ("working", "idle"), timeout=40)
        assert (failed["state"], failed["error"]) == ("error", reason)
        assert failed["basis"] == (["hook"] if extension else ["transcript"])
        assert len(chat_server.main_requests()) == 1  # not retried
        assert_kept_out(env["LUNAVECT_HOME"], b"RHO-7")
    finally:
        client.kill()


def test_esc_while_the_model_answers_is_idle(pi, chat_server: ChatServer) -> None:
    command, iso, env = pi
    chat_server.script(hang())
    client = start_pi(command, iso, env)
    try:
        client.send_text("think long")
        wait_session(env, lambda s: s["state"] == "working", timeout=40)
        chat_server.wait_for_main(1, timeout=40)

        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert (after["state"], after["basis"]) == ("idle", ["hook"])
    finally:
        client.kill()


def test_esc_during_a_running_tool_is_idle(pi, chat_server: ChatServer) -> None:
    command, iso, env = pi
    chat_server.script(shell("sleep 60"), reply("should not come"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("run the long command")
        wait_session(env, lambda s: s["activity"] == "bash", timeout=40)

        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle"
        assert len(chat_server.main_requests()) == 1
    finally:
        client.kill()


def test_kill_9_is_not_left_working(pi, chat_server: ChatServer) -> None:
    command, iso, env = pi
    chat_server.script(shell("sleep 60"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("run the long command")
        working = wait_session(env, lambda s: s["activity"] == "bash", timeout=40)
        assert working["pid"] == client.pid()

        os.kill(client.pid(), signal.SIGKILL)

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle" and not after["open"] and "process" in after["basis"]
    finally:
        client.kill()


def test_compact_is_compacting_until_it_ends(pi, chat_server: ChatServer) -> None:
    """`/compact` is `session_before_compact` and `session_compact` around one model request (the summary),
    held back six seconds here."""
    command, iso, env = pi
    chat_server.script(reply("First reply"), reply("A summary", delay=6))
    client = start_pi(command, iso, env)
    try:
        client.send_text("first question")
        client.wait_for_screen("First reply", timeout=60)
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)

        client.send_text("/compact")

        compacting = wait_session(env, lambda s: s["state"] != "ready", timeout=30)
        assert (compacting["state"], compacting["basis"]) == ("compacting", ["hook"])
        after = wait_session(env, lambda s: s["state"] != "compacting", timeout=40)
        assert after["state"] in ("idle", "ready")
    finally:
        client.kill()


def test_a_reply_is_refused_with_the_reason(pi, chat_server: ChatServer) -> None:
    """lunavect types into no Pi screen: `reply` and `answer` say why, and the session goes on untouched."""
    command, iso, env = pi
    chat_server.script(reply("Hello there"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("say hello")
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        typed = lunavect(env, "reply", ready["session_id"], "never typed")
        assert typed.returncode != 0 and "does not type into Pi's editor" in typed.stdout + typed.stderr, typed
        answered = lunavect(env, "answer", ready["session_id"], "allow")
        assert answered.returncode != 0, answered
        assert "never typed" not in client.capture()
    finally:
        client.kill()


def test_nothing_private_is_kept(pi, chat_server: ChatServer) -> None:
    """Prompts (but the first, the session's title), replies, commands and tool output reach no file lunavect
    writes: its store, its spool, its logs (README "Privacy")."""
    command, iso, env = pi
    chat_server.script(reply("Reply KAPPA-1"), shell("echo NU-4"), reply("Done XI-5"))
    client = start_pi(command, iso, env)
    try:
        client.send_text("first prompt is the title")
        client.wait_for_screen("Reply KAPPA-1", timeout=60)
        client.send_text("second prompt OMICRON-6")
        client.wait_for_screen("Done XI-5", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready" and s["usage"] is not None, timeout=40)
        assert ready["title"] == "first prompt is the title"
        assert [row["session_id"] for row in sessions(env)] == [ready["session_id"]]
        written = assert_kept_out(env["LUNAVECT_HOME"], b"KAPPA", b"NU-4", b"XI-5", b"OMICRON", b"echo ")
        assert any(path.name.startswith("lunavect.sqlite3") for path in written)
        assert any("spool" in path.parts for path in written)
    finally:
        client.kill()
