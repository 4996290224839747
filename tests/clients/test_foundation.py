"""The foundation against the real Claude Code: hooks installed by `lunavect hooks install`, states read
through `lunavect list --json`."""

from __future__ import annotations

from anthropic_server import AnthropicServer, text, tool_use
from lunavect_probe import Timeline, assert_kept_out, list_sessions, lunavect, store_events, wait_for, wait_state

SECRET_PROMPT = "zebra-prompt-8c1f please say hello"
SECRET_REPLY = "quokka-reply-51ad from the scripted model"
SECRET_COMMAND = "echo narwhal-command-77e2; sleep 4"


def test_hooks_are_installed_in_the_iso_home(iso_home):
    assert iso_home.lunavect_hooks_installed
    status = lunavect(iso_home.env, "hooks", "status")
    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith("claude: installed"), status.stdout


def test_plain_reply_ends_ready(claude_tmux, model_server: AnthropicServer, iso_home):
    model_server.script(text("Hello there"))
    claude = claude_tmux()
    claude.send_text("say hello")
    claude.wait_for_screen(r"Hello there", timeout=30)

    session = wait_state(iso_home.env, "ready", timeout=20)
    assert session["provider"] == "claude"
    assert session["id"] == f"claude:{session['session_id']}"
    assert session["cwd"] == str(iso_home.work)
    assert session["pid"] == claude.pid()
    assert session["tty"] == claude.pane_tty()
    assert session["resume"].endswith(f"claude --resume {session['session_id']}")
    assert session["basis"] == ["hook"]


def test_tool_running_for_seconds_shows_working_with_its_name_then_ready(claude_tmux, model_server, iso_home):
    model_server.script(tool_use("Bash", {"command": "sleep 5", "description": "wait"}), text("Finished"))
    claude = claude_tmux("--allowedTools", "Bash")
    claude.send_text("run it")
    timeline = Timeline()

    working = wait_for(iso_home.env, lambda s: s["state"] == "working" and s["activity"] == "Bash", timeline=timeline)
    assert working["since"] is not None
    ready = wait_state(iso_home.env, "ready", timeout=30, timeline=timeline)
    assert ready["activity"] is None
    assert timeline.states[-2:] == ["working", "ready"], timeline


def test_a_session_started_with_no_prompt_is_not_listed(claude_tmux, iso_home):
    claude = claude_tmux()
    assert claude.alive()
    for _ in range(50):  # each `list` makes the collector ingest what the hooks spooled
        list_sessions(iso_home.env)
        if any(kind == "SessionStart" for kind, _ in store_events(iso_home.env)):
            break
    assert any(kind == "SessionStart" for kind, _ in store_events(iso_home.env)), "SessionStart never arrived"
    assert list_sessions(iso_home.env) == []
    assert list_sessions(iso_home.env, "--all") == []


def test_the_store_holds_no_prompt_reply_or_command_text(claude_tmux, model_server, iso_home):
    model_server.script(
        text("First reply"),
        tool_use("Bash", {"command": SECRET_COMMAND, "description": "print a word"}),
        text(SECRET_REPLY),
    )
    claude = claude_tmux("--allowedTools", "Bash")
    # The first prompt's first line is the session's title, as the client itself shows it (README,
    # "Privacy"): the secret goes in a later prompt, which must never be stored.
    claude.send_text("Start of the session")
    claude.wait_for_screen(r"First reply", timeout=30)
    wait_state(iso_home.env, "ready", timeout=20)
    claude.send_text(SECRET_PROMPT)
    claude.wait_for_screen(r"quokka-reply", timeout=40)
    wait_state(iso_home.env, "ready", timeout=20)

    written = assert_kept_out(
        iso_home.env["LUNAVECT_HOME"], b"zebra-prompt-8c1f", b"quokka-reply-51ad", b"narwhal-command-77e2"
    )
    assert any(p.name == "lunavect.sqlite3" for p in written)
