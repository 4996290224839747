"""Smoke tests: the harness drives the real Claude Code against the scripted model server."""

from __future__ import annotations

import time

import pytest
from anthropic_server import AnthropicServer, RefusingPort, error, text, tool_use
from claude_tmux import proc_info

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def test_print_mode_shows_scripted_reply(claude_print, model_server: AnthropicServer, iso_home):
    model_server.script(text("Scripted hello from 127.0.0.1"))

    proc = claude_print("hi")

    assert proc.returncode == 0, proc.stderr
    assert "Scripted hello from 127.0.0.1" in proc.stdout
    main = model_server.main_requests
    assert len(main) == 1
    req = main[0]
    assert req.path.startswith("/v1/messages")
    assert req.body["stream"] is True
    assert "Bash" in req.tool_names
    assert req.last_user_text().rstrip().endswith("hi")
    assert "x-api-key" not in req.headers and "authorization" not in req.headers
    # the transcript lands in the iso HOME
    assert iso_home.transcripts(), list(iso_home.claude_dir.rglob("*"))


def test_interactive_prompt_shows_scripted_reply(claude_tmux, model_server: AnthropicServer, hook_log, iso_home):
    model_server.script(text("Hello from the scripted model"))
    t0 = time.monotonic()
    claude = claude_tmux()
    ready = time.monotonic() - t0

    claude.send_text("say hello")

    claude.wait_for_screen(r"Hello from the scripted model", timeout=30)
    stop = hook_log.wait_for("Stop", timeout=30)
    events = hook_log.events()
    assert events.index("SessionStart") < events.index("UserPromptSubmit") < events.index("Stop"), events
    assert stop["last_assistant_message"] == "Hello from the scripted model"
    assert hook_log.payloads("UserPromptSubmit")[0]["prompt"] == "say hello"
    assert hook_log.payloads("SessionStart")[0]["source"] == "startup"
    # the live catalog names this process and pane
    pid = claude.pid()
    entry = claude.wait_catalog(lambda e: e.get("status") == "idle", timeout=15)
    assert entry["pid"] == pid
    assert entry["sessionId"] == stop["session_id"]
    assert entry["kind"] == "interactive"
    assert entry.get("tmux", "").startswith(claude.session + ":")
    assert ready < 30


def test_scripted_bash_tool_use_really_runs(claude_tmux, model_server: AnthropicServer, hook_log, iso_home):
    call = tool_use("Bash", {"command": "sleep 3; echo done", "description": "Wait, then say done"})
    tool_use_id = call.blocks[0]["id"]
    model_server.script(call, text("The command finished"))
    claude = claude_tmux("--allowedTools", "Bash")

    claude.send_text("run the command")

    follow_up = model_server.wait_for(lambda r: r.route == "main" and r.tool_results(), timeout=40)
    result = follow_up.tool_results()[0]
    assert result["tool_use_id"] == tool_use_id
    assert "done" in follow_up.tool_result_text(tool_use_id)
    claude.wait_for_screen(r"The command finished", timeout=20)
    hook_log.wait_for("Stop", timeout=20)

    events = hook_log.events()
    for name in EVENTS:
        assert name in events, events
    assert (
        events.index("SessionStart")
        < events.index("UserPromptSubmit")
        < events.index("PreToolUse")
        < events.index("PostToolUse")
        < events.index("Stop")
    )
    pre = hook_log.payloads("PreToolUse")[0]
    post = hook_log.payloads("PostToolUse")[0]
    assert pre["tool_name"] == post["tool_name"] == "Bash"
    assert pre["tool_input"]["command"] == "sleep 3; echo done"
    assert pre["tool_use_id"] == post["tool_use_id"] == tool_use_id
    assert post["tool_response"]["stdout"].strip() == "done"
    assert post["duration_ms"] >= 2500

    # the hook runs as `sh -c <command>`, a child of the claude process
    meta = next(e["meta"] for e in hook_log.entries() if e["payload"].get("hook_event_name") == "PreToolUse")
    ancestors = meta["ancestors"]
    assert ancestors[0]["comm"] == "sh"
    assert ancestors[1]["pid"] == claude.pid()
    assert ancestors[1]["comm"] == "claude"


def test_permission_prompt_answered_with_keys(claude_tmux, model_server: AnthropicServer, hook_log, iso_home):
    model_server.script(
        tool_use("Bash", {"command": "echo permitted > marker.txt", "description": "Write a marker"}),
        text("Marker written"),
    )
    claude = claude_tmux("--permission-mode", "default")

    claude.send_text("write the marker")

    request = hook_log.wait_for("PermissionRequest", timeout=30)
    assert request["tool_name"] == "Bash" and request["tool_input"]["command"] == "echo permitted > marker.txt"
    claude.wait_for_screen(r"Do you want to proceed\?", timeout=15)
    waiting = claude.wait_catalog(lambda e: e.get("status") == "waiting", timeout=10)
    assert waiting["waitingFor"] == "permission prompt"
    assert not (iso_home.work / "marker.txt").exists()

    claude.answer("Enter", until_gone=r"Do you want to proceed\?")  # "1. Yes" is preselected

    hook_log.wait_for("Stop", timeout=30)
    assert (iso_home.work / "marker.txt").read_text().strip() == "permitted"
    claude.wait_for_screen(r"Marker written", timeout=15)


def test_subagent_requests_take_their_own_route(claude_print, model_server: AnthropicServer):
    model_server.script(
        tool_use(
            "Agent",
            {"description": "Greet", "prompt": "Say hello from the sub-agent", "subagent_type": "general-purpose"},
        ),
        text("Main loop done"),
    )
    model_server.script(text("Hello from the sub-agent"), route="subagent")

    proc = claude_print("delegate", "--allowedTools", "Agent")

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Main loop done" in proc.stdout
    sub = model_server.message_requests("subagent")
    assert sub and sub[0].answer == "message[text] end_turn"
    assert "Say hello from the sub-agent" in sub[0].last_user_text()
    main = model_server.main_requests
    assert main[0].answer == "message[tool_use:Agent] tool_use"
    assert main[1].answer == "message[text] end_turn"  # not eaten by the sub-agent


@pytest.mark.parametrize("status,shown", [(529, "529 Overloaded"), (401, "Invalid API key")])
def test_scripted_http_error_reaches_the_client(claude_print, model_server: AnthropicServer, status, shown):
    model_server.script(error(status))

    proc = claude_print("hi", max_retries=0)

    assert proc.returncode != 0
    assert shown in proc.stdout + proc.stderr
    assert model_server.main_requests[0].answer.startswith(f"error {status}")


def test_refused_connection(claude_print):
    with RefusingPort() as port:
        proc = claude_print("hi", base_url=port.url, max_retries=0, timeout=60)
    assert proc.returncode != 0
    assert "ECONNREFUSED" in proc.stdout + proc.stderr


def test_claude_typed_into_a_shell(claude_tmux, model_server: AnthropicServer):
    model_server.script(text("Started from a shell"))
    claude = claude_tmux(via_shell=True)

    pid = claude.pid()
    info = proc_info(pid)
    assert info["comm"] == "claude"
    assert info["ppid"] == claude.pane_pid()  # the pane's sh
    assert info["fd0"] == claude.pane_tty()
    claude.send_text("hello")
    claude.wait_for_screen(r"Started from a shell", timeout=30)
    assert claude.exit()
    assert claude.catalog_entry() is None
