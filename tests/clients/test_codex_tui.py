"""The real interactive Codex CLI 0.169.0 under tmux, watched by lunavect.

A person types into the TUI (`send-keys -l`, then Enter), approves or interrupts with keys, or kills it; lunavect
must show permission while Codex waits for an approval, and never leave an interrupted or killed session working.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time

import pytest
from codex_harness import (
    at_the_marker_approval,
    install_hooks,
    lunavect,
    start_tui,
    wait_session,
    without_hooks,
    write_config,
)
from responses_server import ResponsesServer, exec_command, message


def _runner_pid(env: dict[str, str], session_id: str) -> int | None:
    """The process the session's hooks recorded (the one that runs it), from the collector's stored facts."""
    conn = sqlite3.connect(f"file:{env['LUNAVECT_HOME']}/lunavect.sqlite3?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT data FROM facts WHERE id = ?", (f"codex:{session_id}",)).fetchone()
    finally:
        conn.close()
    return json.loads(row[0]).get("pid") if row else None


def test_an_approval_prompt_shows_permission(codex_tmux, codex_server: ResponsesServer) -> None:
    env = codex_tmux[2]
    with at_the_marker_approval(codex_tmux, codex_server, hooks=True) as (tui, marker):
        asking = wait_session(env, lambda s: s["state"] == "permission", timeout=30)
        assert asking["waiting_for"] == "Bash"
        assert json.loads(lunavect(env, "counts", "--json").stdout)["awaiting_input"] == 1
        assert not marker.exists()

        tui.send_keys("Enter")  # "1. Yes, proceed" is preselected

        tui.wait_for_screen(r"Marker written", timeout=40)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=30)
        assert ready["session_id"] == asking["session_id"] and ready["client"] == "cli"
        assert marker.read_text().strip() == "permitted"


def test_an_approved_command_works_from_the_approval_until_it_ends(codex_tmux, codex_server: ResponsesServer) -> None:
    """Approved in the TUI, the command runs for 20 s and no hook fires until it ends: Codex's daemon says the
    thread is active with no approval waiting from the approval on, and so must lunavect (issue 48, item 1)."""
    env = codex_tmux[2]
    long_command = "python3 -c 'import time; time.sleep(20)'"
    with at_the_marker_approval(codex_tmux, codex_server, hooks=True, before=long_command) as (tui, marker):
        wait_session(env, lambda s: s["state"] == "permission", timeout=30)

        tui.send_keys("Enter")  # "1. Yes, proceed" is preselected
        approved = time.monotonic()
        working = wait_session(env, lambda s: s["state"] != "permission", timeout=5, interval=0.2)
        assert (working["state"], working["activity"]) == ("working", "Bash"), working
        assert json.loads(lunavect(env, "counts", "--json").stdout)["awaiting_input"] == 0
        seen = []
        while not marker.exists():
            session = wait_session(env, lambda s: s["session_id"] == working["session_id"], timeout=10)
            if not marker.exists():
                seen.append((round(time.monotonic() - approved, 1), session["state"], session["activity"]))
            assert time.monotonic() - approved < 60, seen
        assert seen and all(state == "working" and activity == "Bash" for _, state, activity in seen), seen
        assert seen[-1][0] >= 15, seen  # watched through the command's run
        wait_session(env, lambda s: s["state"] == "ready", timeout=30)


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "rollout-only"])
def test_esc_during_a_command_does_not_leave_it_working(codex_tmux, codex_server: ResponsesServer, hooks: bool) -> None:
    paths, iso, env = codex_tmux
    write_config(iso, codex_server)
    if hooks:
        install_hooks(env)
    else:
        without_hooks(iso)
    codex_server.script(exec_command("sleep 60", yield_time_ms=30000))
    tui = start_tui(paths, iso, env)
    try:
        tui.send_text("run the long command")
        working = wait_session(env, lambda s: s["state"] == "working" and s["activity"] == "Bash", timeout=40)

        tui.send_keys("Escape")

        tui.wait_for_screen(r"Conversation interrupted", timeout=20)
        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert after["state"] == "idle" and after["session_id"] == working["session_id"]
        assert after["basis"] == (["hook"] if hooks else ["rollout"])
    finally:
        tui.kill()


def test_kill_9_of_the_tui_does_not_leave_it_working(codex_tmux, codex_server: ResponsesServer) -> None:
    """The process that runs the thread is the one whose death ends it. Codex 0.169.0's TUI runs the thread
    itself, or (once Codex installed its managed app-server daemon under this CODEX_HOME) hands it to that
    daemon, which outlives the TUI: then the turn really goes on after the TUI is killed, and ends when the
    daemon is killed."""
    paths, iso, env = codex_tmux
    write_config(iso, codex_server)
    install_hooks(env)
    codex_server.script(exec_command("sleep 60", yield_time_ms=30000))
    tui = start_tui(paths, iso, env)
    try:
        tui.send_text("run the long command")
        working = wait_session(env, lambda s: s["state"] == "working", timeout=40)
        native = tui.pid()
        # The process that runs the thread is the one its hooks recorded; the row names the one the person
        # sees (the TUI, once found), so the runner is read from the collector's facts.
        runner = _runner_pid(env, working["session_id"])
        assert runner is not None
        if runner != native:
            exe = os.readlink(f"/proc/{runner}/exe")
            assert exe.startswith(str(iso.codex_dir / "packages" / "app-server-daemon")), exe
            os.kill(native, signal.SIGKILL)
            time.sleep(3)
            still = wait_session(env, lambda s: s["session_id"] == working["session_id"], timeout=10)
            assert still["state"] == "working"  # the daemon still runs the turn (and its command)
            assert not still["open"]  # but the TUI that showed it is gone
        os.kill(runner, signal.SIGKILL)
        after = wait_session(env, lambda s: s["state"] != "working", timeout=20)
        assert after["state"] == "idle" and "process" in after["basis"]
    finally:
        tui.kill()


def test_a_quit_tui_ends_its_session_within_seconds_and_open_gives_its_resume(codex_tmux, codex_server) -> None:
    """Codex's managed daemon runs the thread and outlives the TUI (it keeps the quit thread loaded for a minute
    or more): the row follows the TUI, the process the person sees, and ends when it quits (issue 48, item 2)."""
    paths, iso, env = codex_tmux
    write_config(iso, codex_server)
    install_hooks(env)
    codex_server.script(message("Hello from the model"))
    tui = start_tui(paths, iso, env)
    try:
        tui.send_text("say hello")
        native = tui.pid()
        shown = wait_session(env, lambda s: s["state"] == "ready" and s["pid"] == native, timeout=40)
        assert shown["open"] and shown["tty"] == tui.pane_tty()
        runner = _runner_pid(env, shown["session_id"])
        assert runner != native and os.readlink(f"/proc/{runner}/exe").startswith(str(iso.codex_dir)), runner

        tui.send_text("/quit")
        quit_at = time.monotonic()
        ended = wait_session(env, lambda s: s["session_id"] == shown["session_id"] and not s["open"], timeout=10)
        assert time.monotonic() - quit_at < 10
        assert os.path.exists(f"/proc/{runner}"), "the daemon outlives the TUI: the row did not wait for it"

        on_path = {**env, "PATH": f"{paths.codex.parent}{os.pathsep}{env.get('PATH', os.defpath)}"}
        opened = lunavect(on_path, "open", ended["id"], "--json")
        result = json.loads(opened.stdout)
        assert opened.returncode == 0 and result["outcome"] == "resume", opened.stdout + opened.stderr
        assert result["command"] == f"cd {shown['cwd']} && codex resume {shown['session_id']}", result
    finally:
        tui.kill()
