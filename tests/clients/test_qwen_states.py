"""The real interactive Qwen Code 0.24.4 under tmux against the scripted Chat Completions API, watched by lunavect.

A person types into the client (`send-keys -l`, then Enter), answers its approval with keys, presses Esc, or kills
it; lunavect must show each state its hooks, its title and its chat file give, and never leave a failed, cancelled
or killed session working. What each test observed is in NOTES.md.
"""

from __future__ import annotations

import json
import os
import signal

import pytest
from chat_server import ChatServer, error, reply, tool_call
from lunavect_probe import assert_kept_out
from qwen_harness import (
    WAITING_RE,
    ask,
    at_the_marker_permission,
    chat_files,
    sessions,
    settings_path,
    shell,
    start_qwen,
    wait_session,
    without_hooks,
)

# It refuses a standalone `sleep` ("Run blocking commands in the background") unless a comment says it is meant.
LONG = "sleep {} # intentional-sleep: the test's long command"


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "chat-file-only"])
def test_a_reply_is_ready_with_its_title_and_usage(qwen, chat_server: ChatServer, hooks: bool) -> None:
    """Without hooks the chat file alone gives the title, the reply's end and its usage. The model's window is the
    one the person set, as its turn's end (`Stop`) names it; its chat file does not, so without hooks it is
    unknown."""
    command, iso, env = qwen
    if not hooks:
        without_hooks(iso)
    path = settings_path(iso)
    settings = json.loads(path.read_text())
    settings["model"] = {"generationConfig": {"contextWindowSize": 64_000}}
    path.write_text(json.dumps(settings))
    chat_server.script(reply("Hello from the script", usage={"prompt_tokens": 1000, "completion_tokens": 7}))
    client = start_qwen(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("Hello from the script", timeout=60)
        # With hooks, the chat file's reply may be read before the `Stop` that names the window.
        windowed = lambda s: not hooks or bool((s["usage"] or {}).get("context_window"))  # noqa: E731
        ready = wait_session(env, lambda s: s["state"] == "ready" and windowed(s), timeout=40)
        assert ready["title"] == "say hello" and ready["cwd"] == str(iso.work)
        assert ("hook" in ready["basis"]) is hooks
        assert ready["usage"]["tokens"]["output"] == 7 and ready["usage"]["model"] == "m"
        assert ready["usage"]["context_window"] == (64_000 if hooks else None)
        if hooks:
            assert ready["pid"] == client.pid() and ready["open"] is True
        assert ready["resume"] == f"cd {iso.work} && qwen --resume {ready['session_id']}"
        assert [p.stem for p in chat_files(iso)] == [ready["session_id"]]
    finally:
        client.kill()


def test_a_running_tool_is_working_on_it_and_kill_9_is_not_left_working(qwen, chat_server: ChatServer) -> None:
    command, iso, env = qwen
    chat_server.script(shell(LONG.format(90)), reply("should not come"))
    client = start_qwen(command, iso, env, "--yolo")
    try:
        client.send_text("run the long command")
        working = wait_session(env, lambda s: s["activity"] == "run_shell_command", timeout=60)
        assert working["state"] == "working" and "hook" in working["basis"]
        assert working["pid"] == client.pid()

        os.kill(client.pid(), signal.SIGKILL)

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle" and "process" in after["basis"]
        assert wait_session(env, lambda s: s["open"] is False, timeout=20)["session_id"] == working["session_id"]
    finally:
        client.kill()


def test_esc_while_a_tool_runs_is_idle(qwen, chat_server: ChatServer) -> None:
    command, iso, env = qwen
    chat_server.script(shell(LONG.format(60)), reply("should not come"))
    client = start_qwen(command, iso, env, "--yolo")
    try:
        client.send_text("run the long command")
        wait_session(env, lambda s: s["activity"] == "run_shell_command", timeout=60)

        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=30)
        assert after["state"] == "idle"
        assert len(chat_server.main_requests()) == 1
    finally:
        client.kill()


def test_a_permission_approved_works_on_the_tool_then_is_ready(qwen, chat_server: ChatServer) -> None:
    """Its PermissionRequest is the wait; its PreToolUse fires once approved, as the tool starts."""
    env = qwen[2]
    with at_the_marker_permission(qwen, chat_server, reply("Marker written")) as (client, marker, asking):
        assert asking["waiting_for"] == "run_shell_command" and "hook" in asking["basis"]

        client.send_keys("Enter")  # "1. Yes, allow once" is chosen

        client.wait_for_screen("Marker written", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert marker.exists() and ready["session_id"] == asking["session_id"]
        # Its hooks' records and the chat file's reading keep no reply, prompt or command text (the first
        # prompt is the session's title, as for every client).
        assert_kept_out(env["LUNAVECT_HOME"], b"Marker written", b"touch ", str(marker).encode())


def test_a_permission_denied_with_esc_is_idle(qwen, chat_server: ChatServer) -> None:
    """Esc dismisses the approval: no PermissionDenied and no Stop fire, its `idle_prompt` notice does."""
    env = qwen[2]
    with at_the_marker_permission(qwen, chat_server, reply("should not come")) as (client, marker, _asking):
        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=30)
        assert after["state"] == "idle"
        assert not marker.exists() and len(chat_server.main_requests()) == 1


def test_a_question_is_input_needed_until_answered(qwen, chat_server: ChatServer) -> None:
    command, iso, env = qwen
    chat_server.script(ask("Which colour?", "red", "blue"), reply("Red it is"))
    client = start_qwen(command, iso, env)
    try:
        client.send_text("ask me")
        client.wait_for_screen(WAITING_RE, timeout=60)
        asking = wait_session(env, lambda s: s["state"] == "input", timeout=40)
        assert "hook" in asking["basis"]

        client.send_keys("Enter")  # "red" is the first

        client.wait_for_screen("Red it is", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["session_id"] == asking["session_id"]
    finally:
        client.kill()


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "chat-file-only"])
def test_an_api_error_is_an_error_with_its_reason(qwen, chat_server: ChatServer, hooks: bool) -> None:
    """Its StopFailure (no Stop) names the error; its chat file's `api_error` record, with the status, says it
    without hooks."""
    command, iso, env = qwen
    if not hooks:
        without_hooks(iso)
    chat_server.script(error(401, "Scripted failure of the model"))
    client = start_qwen(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("Scripted failure", timeout=60)
        failed = wait_session(env, lambda s: s["state"] not in ("working", "idle"), timeout=40)
        assert (failed["state"], failed["error"]) == ("error", "auth")  # `authentication_failed`; a 401
        assert len(chat_server.main_requests()) == 1  # not retried
    finally:
        client.kill()


def test_a_sub_agent_stays_out_of_the_rows(qwen, chat_server: ChatServer) -> None:
    """Its `agent` tool runs the sub-agent in the session's own process; the sub-agent's transcript is kept apart
    (`projects/<folder>/subagents/<session id>/`), never a row of its own."""
    command, iso, env = qwen
    task = {"description": "look around", "prompt": "say hi", "subagent_type": "general-purpose"}
    chat_server.script(
        tool_call("agent", {**task, "run_in_background": False}), reply("Sub-agent done"), reply("Parent done")
    )
    client = start_qwen(command, iso, env, "--yolo")
    try:
        client.send_text("use an agent")
        client.wait_for_screen("Parent done", timeout=90)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert len(chat_server.main_requests()) == 3
        assert [s["session_id"] for s in sessions(env)] == [ready["session_id"]]
        assert list((iso.home / ".qwen" / "projects").glob(f"*/subagents/{ready['session_id']}/*.jsonl"))
    finally:
        client.kill()


def test_compress_is_compacting_until_it_ends(qwen, chat_server: ChatServer) -> None:
    """`/compress` fires PreCompact (`manual`) before its summary request and PostCompact once it is written (then
    SessionStart again, in the same session): compacting, then idle."""
    command, iso, env = qwen
    summary = reply("<state_snapshot>the summary</state_snapshot>", delay=6)
    chat_server.script(reply("First reply " + "words " * 400), summary)
    client = start_qwen(command, iso, env)
    try:
        client.send_text("say a lot")
        client.wait_for_screen("First reply", timeout=60)
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)

        client.send_text("/compress")

        compacting = wait_session(env, lambda s: s["state"] == "compacting", timeout=40)
        assert "hook" in compacting["basis"]
        after = wait_session(env, lambda s: s["state"] != "compacting", timeout=40)
        assert after["state"] == "idle" and len(chat_server.main_requests()) == 2
        assert [s["session_id"] for s in sessions(env)] == [compacting["session_id"]]
    finally:
        client.kill()
