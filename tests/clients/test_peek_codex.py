"""`lunavect show|reply|answer` against the real Codex TUI under tmux and the scripted Responses server:
show prints the scripted reply, a reply reaches the server as exactly the next user message and the state
goes working, answer allow runs the command and the server sees its output; a draft in the composer, a
working session and a session whose terminal is ambiguous are refused without typing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from codex_harness import APPROVAL_RE, install_hooks, lunavect, sessions, start_tui, wait_session, write_config
from open_support import write_codex_hooks
from responses_server import ResponsesServer, exec_command, message

from lunavect.install.command import hook_command

DUMP = os.environ.get("LUNAVECT_PEEK_SCREENS")  # a folder to keep the screens seen (for the unit fixtures)


def _dump(tui, name: str) -> None:
    if DUMP:
        Path(DUMP, name + ".txt").write_text(tui.capture(escapes=True))


def _asked(text: str):
    return lambda req: bool(req.tool_names) and req.last_user_text() == text and not req.function_outputs()


def test_show_reply_and_answer_a_codex_tui(codex_tmux, codex_server: ResponsesServer) -> None:
    paths, iso, env = codex_tmux
    write_config(iso, codex_server, approval="on-request", sandbox="workspace-write")
    install_hooks(env)
    marker = iso.work / "marker.txt"
    codex_server.script(message("Codex reply ZETA-31"), match=_asked("first codex prompt"), route="first")
    # The reply is held long enough that "working" is still true when the refused reply is tried, on a loaded
    # machine too (4 s was not: the turn had ended before the second `lunavect reply` started).
    codex_server.script(message("Answered ETA-22", delay=12), match=_asked("codex reply ETA-22"), route="reply")
    codex_server.script(
        exec_command(f"echo permitted > {marker}", sandbox_permissions="require_escalated", justification="Marker?"),
        match=_asked("write the marker THETA"),
        route="ask",
    )
    codex_server.script(
        message("Marker written IOTA"), match=lambda req: "permitted" in json.dumps(req.input), route="after"
    )
    tui = start_tui(paths, iso, env)
    try:
        _dump(tui, "codex_empty")
        tui.send_text("first codex prompt")
        tui.wait_for_screen("Codex reply ZETA-31", timeout=40)
        sid = wait_session(env, lambda s: s["state"] == "ready", timeout=30)["id"]
        time.sleep(0.5)
        _dump(tui, "codex_ready")

        shown = lunavect(env, "show", sid)
        assert shown.returncode == 0, shown.stderr
        assert "› first codex prompt" in shown.stdout and "● Codex reply ZETA-31" in shown.stdout

        tui.send_keys("d", "r", "a", "f", "t")
        tui.wait_for_screen("› draft", timeout=10)
        _dump(tui, "codex_draft")
        drafted = lunavect(env, "reply", sid, "never typed DRAFT")
        assert drafted.returncode == 1 and "typed text" in drafted.stderr, drafted.stderr
        tui.send_keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
        time.sleep(0.5)

        sent = lunavect(env, "reply", sid, "codex reply ETA-22")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        request = codex_server.wait_for(lambda r: "ETA-22" in r.last_user_text(), timeout=30)
        assert request.last_user_text() == "codex reply ETA-22"
        wait_session(env, lambda s: s["state"] == "working", timeout=20)
        busy = lunavect(env, "reply", sid, "never typed BUSY")
        assert busy.returncode == 1 and "(Working)" in busy.stderr
        wait_session(env, lambda s: s["state"] == "ready", timeout=30)

        assert lunavect(env, "reply", sid, "write the marker THETA").returncode == 0
        tui.wait_for_screen(APPROVAL_RE, timeout=40)
        wait_session(env, lambda s: s["state"] == "permission", timeout=30)
        time.sleep(0.5)
        _dump(tui, "codex_permission")
        allowed = lunavect(env, "answer", sid, "allow")
        assert allowed.returncode == 0, allowed.stdout + allowed.stderr
        codex_server.wait_for(lambda r: "permitted" in json.dumps(r.input) and r.function_outputs(), timeout=30)
        tui.wait_for_screen("Marker written IOTA", timeout=40)
        assert marker.read_text().strip() == "permitted"
        shown = lunavect(env, "show", sid, "--last", "4").stdout
        assert "⏺ exec_command  echo permitted" in shown and "Marker written IOTA" in shown
    finally:
        tui.kill()


def test_a_reply_to_a_session_whose_terminal_is_ambiguous_is_refused(codex_tmux, codex_server: ResponsesServer) -> None:
    """Hooks run detached (`setsid -f`) record no process or terminal, and Codex has no live catalog: two
    Codex sessions in one folder cannot be told apart, so a reply to either types nothing anywhere."""
    paths, iso, env = codex_tmux
    write_config(iso, codex_server)
    write_codex_hooks(iso.codex_dir, f"setsid -f {hook_command('codex')}")
    tuis = []
    try:
        for name in ("one", "two"):
            codex_server.script(message(f"Reply {name}"), match=_asked(f"prompt {name}"), route=name)
            tui = start_tui(paths, iso, env, "--dangerously-bypass-hook-trust", name=name)
            tuis.append(tui)
            tui.send_text(f"prompt {name}")
            tui.wait_for_screen(f"Reply {name}", timeout=40)
        ready = wait_session(
            env, lambda s: len([x for x in sessions(env) if x["state"] == "ready"]) == 2 and s["state"] == "ready"
        )
        assert ready["pid"] is None and ready["tty"] is None, ready
        before = len(codex_server.requests)
        refused = lunavect(env, "reply", ready["id"], "never typed AMBIGUOUS")
        assert refused.returncode == 1 and "cannot tell which terminal" in refused.stderr, refused.stderr
        assert all("AMBIGUOUS" not in tui.capture() for tui in tuis)
        assert len(codex_server.requests) == before
    finally:
        for tui in tuis:
            tui.kill()
