"""Smoke tests: the harness drives the real Claude Code against the scripted model server."""

from __future__ import annotations

import time

from anthropic_server import AnthropicServer, RefusingPort, error, text, tool_use

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
    # the client wrote only into the iso HOME
    assert iso_home.transcripts(), list(iso_home.claude_dir.rglob("*"))


def test_interactive_prompt_shows_scripted_reply(claude_tmux, model_server: AnthropicServer, hook_log, iso_home):
    model_server.script(text("Hello from the scripted model"))
    t0 = time.monotonic()
    claude = claude_tmux()
    ready = time.monotonic() - t0

    claude.send_text("say hello")

    claude.wait_for_screen(r"Hello from the scripted model", timeout=30)
    stop = hook_log.wait_for("Stop", timeout=30)
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
    assert events.index("SessionStart") < events.index("UserPromptSubmit") < events.index("PreToolUse") \
        < events.index("PostToolUse") < events.index("Stop")
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


def test_scripted_http_error_is_returned(claude_print, model_server: AnthropicServer):
    model_server.script(error(529))

    proc = claude_print("hi", max_retries=0)

    assert proc.returncode != 0 or "rror" in proc.stdout + proc.stderr
    assert model_server.main_requests[0].answer == "error 529 overloaded_error"


def test_refused_connection(claude_print):
    with RefusingPort() as port:
        proc = claude_print("hi", base_url=port.url, max_retries=0, timeout=60)
    assert proc.returncode != 0 or "rror" in proc.stdout + proc.stderr
