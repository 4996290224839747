"""The real interactive Gemini CLI 0.61.0 under tmux against the scripted Gemini API, watched by lunavect.

A person types into the client (`send-keys -l`, then Enter), answers its confirmation with keys, presses Esc,
or kills it; lunavect must show each state the hooks, the chat file, the pane title and the process give, and
never leave a failed, cancelled or killed session working. What each test observed is in NOTES.md.
"""

from __future__ import annotations

import os
import signal

import pytest
from gemini_harness import (
    at_the_marker_permission,
    chat_files,
    running_the_long_command,
    sessions,
    start_gemini,
    wait_reply,
    wait_session,
    write_settings,
)
from gemini_server import GeminiServer, ask_user, error, function_call, hang, text
from lunavect_probe import assert_kept_out


def cancelled(iso) -> bool:
    """The chat file holds the client's record of a cancelled request."""
    return any('"content":"Request cancelled."' in path.read_text() for path in chat_files(iso))


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "chat-file-only"])
def test_a_reply_is_ready_with_its_title_and_usage(gemini, gemini_server: GeminiServer, hooks: bool) -> None:
    """Without hooks the chat file alone gives the title, the reply's end and its usage."""
    paths, iso, env = gemini
    if not hooks:
        write_settings(iso, hooks=False)
    gemini_server.script(text("Hello from the script"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("say hello")
        ready = wait_reply(client, env, r"Hello from the script")
        assert (ready["title"], ready["basis"]) == ("say hello", ["hook"] if hooks else ["transcript"])
        assert ready["usage"]["tokens"]["output"] == 5
        if hooks:
            assert ready["pid"] == client.pid()  # the relaunched child, not the launcher
            assert ready["usage"]["model"] == "gemini-2.5-flash"
            assert ready["resume"].endswith(f"gemini --resume {ready['session_id']}") and ready["open"] is True
    finally:
        client.kill()


def test_a_running_tool_is_working_on_it(gemini, gemini_server: GeminiServer) -> None:
    with running_the_long_command(gemini, gemini_server) as (_client, working):
        assert working["state"] == "working" and "hook" in working["basis"]


def test_a_permission_approved_is_working_from_the_title_then_ready(gemini, gemini_server: GeminiServer) -> None:
    """No hook fires when a confirmation is approved: the pane title's `✦` says the tool runs."""
    env = gemini[2]
    with at_the_marker_permission(gemini, gemini_server, before="sleep 4; ", reply="Marker written") as held:
        client, marker, asking = held
        assert asking["waiting_for"] == "run_shell_command"
        assert client.title().startswith("✋")

        client.send_keys("Enter")  # "1. Allow once" is preselected

        running = wait_session(env, lambda s: s["state"] == "working", timeout=10)
        assert (running["activity"], running["basis"]) == ("run_shell_command", ["title"])
        assert not marker.exists()
        ready = wait_reply(client, env, r"Marker written")
        assert ready["basis"] == ["hook"] and marker.exists()
        # Its hooks' records, the chat file's reading and the titles' polls keep no reply, command or title
        # text (README "Privacy"; the first prompt is the session's title, as for every client).
        assert_kept_out(
            env["LUNAVECT_HOME"], b"Marker written", b"sleep 4", b"touch ", b"Working\xe2\x80\xa6", b"Action Required"
        )


def test_a_permission_denied_is_idle_from_the_chat_file(gemini, gemini_server: GeminiServer) -> None:
    """No hook fires on a denial: the chat file's "Request cancelled." ends the turn."""
    iso, env = gemini[1:]
    with at_the_marker_permission(gemini, gemini_server) as (client, marker, _asking):
        client.send_keys("Escape")  # "3. No, suggest changes (esc)"

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=20)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
        assert not marker.exists() and len(gemini_server.stream_requests) == 1
        assert cancelled(iso)


def test_a_question_is_input_needed_until_answered(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    gemini_server.script(ask_user("Which colour?", options=("Red", "Blue")), text("Red it is"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("ask me")
        client.wait_for_screen(r"Which colour", timeout=40)
        asking = wait_session(env, lambda s: s["state"] == "input", timeout=30)
        assert asking["waiting_for"] == "elicitation" and asking["basis"] == ["hook"]

        client.send_keys("Enter")  # "1. Red" is preselected

        ready = wait_reply(client, env, r"Red it is")
        assert ready["session_id"] == asking["session_id"]
    finally:
        client.kill()


@pytest.mark.parametrize(("status", "reason"), [(400, "other"), (403, "auth")])
def test_an_api_error_is_an_error_with_its_reason(gemini, gemini_server: GeminiServer, status, reason) -> None:
    """No hook reports an API error (AfterAgent fires as after a reply): the chat file's error record does."""
    paths, iso, env = gemini
    gemini_server.script(error(status, "Scripted failure of the model"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen(r"API Error", timeout=40)
        failed = wait_session(env, lambda s: s["state"] not in ("working", "idle"), timeout=30)
        assert (failed["state"], failed["error"], failed["basis"]) == ("error", reason, ["transcript"])
        assert len(gemini_server.stream_requests) == 1  # not retried
    finally:
        client.kill()


def test_esc_while_the_model_answers_is_idle(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    gemini_server.script(hang())
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("think long")
        wait_session(env, lambda s: s["state"] == "working", timeout=40)

        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
        assert cancelled(iso)
    finally:
        client.kill()


def test_esc_during_a_running_tool_is_idle(gemini, gemini_server: GeminiServer) -> None:
    iso, env = gemini[1:]
    with running_the_long_command(gemini, gemini_server, text("should not come")) as (client, _working):
        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert after["state"] == "idle"
        assert len(gemini_server.stream_requests) == 1 and cancelled(iso)


def test_kill_9_is_not_left_working(gemini, gemini_server: GeminiServer) -> None:
    env = gemini[2]
    started = running_the_long_command(gemini, gemini_server, seconds=60, until=lambda s: s["state"] == "working")
    with started as (client, working):
        assert working["pid"] == client.pid()

        os.kill(client.pid(), signal.SIGKILL)

        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert after["state"] == "idle" and "process" in after["basis"]
        assert wait_session(env, lambda s: s["open"] is False, timeout=10)["session_id"] == working["session_id"]


def test_resume_continues_the_same_row(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    gemini_server.script(text("First reply"), text("Second reply"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("first question")
        first = wait_reply(client, env, r"First reply")
    finally:
        client.kill()
    again = start_gemini(paths, iso, env, "--resume", first["session_id"], name="again")
    try:
        again.send_text("second question")
        again.wait_for_screen(r"Second reply", timeout=40)
        ready = wait_session(env, lambda s: s["state"] == "ready" and s["open"], timeout=30)
        assert ready["session_id"] == first["session_id"] and ready["title"] == "first question"
        assert ready["pid"] == again.pid()
        assert [row["session_id"] for row in sessions(env)] == [first["session_id"]]
    finally:
        again.kill()


def test_compress_is_compacting_until_its_record(gemini, gemini_server: GeminiServer) -> None:
    """`/compress` fires `PreCompress` (`trigger: "manual"`) and no hook at its end: the chat file's record of
    the compression ends it. The summary is the one `:generateContent` request, held back six seconds."""
    paths, iso, env = gemini
    gemini_server.script(text("First reply"))
    gemini_server.script(text("A summary", delay=6), match=lambda r: r.method_name == "generateContent")
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("first question")
        wait_reply(client, env, r"First reply")

        client.send_text("/compress")

        compacting = wait_session(env, lambda s: s["state"] != "ready", timeout=20)
        assert (compacting["state"], compacting["basis"]) == ("compacting", ["hook"])
        after = wait_session(env, lambda s: s["state"] != "compacting", timeout=30)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
    finally:
        client.kill()


def test_without_hooks_the_chat_file_gives_an_api_error_and_a_cancel(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    write_settings(iso, hooks=False)
    gemini_server.script(error(403, "Scripted failure of the model"), hang())
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen(r"API Error", timeout=40)
        failed = wait_session(env, lambda s: s["state"] == "error", timeout=30)
        assert (failed["error"], failed["basis"]) == ("auth", ["transcript"])

        client.send_text("think long")
        gemini_server.wait_for_count(2, timeout=30)
        client.send_keys("Escape")

        after = wait_session(env, lambda s: s["state"] == "idle", timeout=30)
        assert after["basis"] == ["transcript"] and cancelled(iso)
    finally:
        client.kill()


def test_a_sub_agent_stays_out_of_the_rows(gemini, gemini_server: GeminiServer) -> None:
    """Its `invoke_agent` runs the sub-agent's own model loop (its requests offer no `invoke_agent`) and writes
    its own chat file under `chats/<parent session>/`: the list keeps one row, the main session's."""
    paths, iso, env = gemini
    gemini_server.script(
        function_call("invoke_agent", {"agent_name": "generalist", "prompt": "say done"}), text("Main done")
    )
    gemini_server.script(
        *[text("Sub done")] * 10, match=lambda r: r.is_stream and "invoke_agent" not in r.tool_names, route="sub"
    )
    client = start_gemini(paths, iso, env, "--approval-mode", "yolo")
    try:
        client.send_text("delegate")
        ready = wait_reply(client, env, r"Main done", timeout=60)
        assert [row["session_id"] for row in sessions(env)] == [ready["session_id"]]
        assert any(r.route == "sub" for r in gemini_server.stream_requests)
        own = list((iso.home / ".gemini" / "tmp").glob(f"*/chats/{ready['session_id']}/*.jsonl"))
        assert len(own) == 1
    finally:
        client.kill()
