"""Notifications from the real Claude Code (and Codex), through a real D-Bus session bus and dunst under Xvfb.

Each test starts its own desktop (`desktop_bus.DesktopBus`) and a collector (`lunavect daemon`) on that bus,
drives the real client under tmux against the scripted model server, and reads back what dunst received. A
"no notification" is proven by a later notification of another session arriving alone: notifications are
sent in order, so one that was going to come would have come first.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest
from anthropic_server import custom, delayed, error, text, tool_use
from lunavect_probe import lunavect, wait_state
from notifications_support import Collector, wait_shown

PERMISSION_DIALOG = r"Do you want to proceed\?"


def folder(iso_home, name: str):
    """A project folder of its own: a notification names its project, whatever title was read by then."""
    path = iso_home.work / name
    path.mkdir(exist_ok=True)
    return path


def quiet_period(iso_home, seconds: float) -> None:
    from pathlib import Path

    from lunavect import paths, store
    from lunavect.notify import settings

    conn = store.connect(Path(iso_home.env["LUNAVECT_HOME"]) / paths.STORE_FILE_NAME)
    try:
        chosen = settings.load(conn)
        chosen.quiet_s = seconds
        settings.save(conn, chosen)
    finally:
        conn.close()


def test_a_reply_that_ends_notifies_exactly_once(claude_tmux, model_server, iso_home, desktop, collector):
    model_server.script(text("All done."))
    claude = claude_tmux(cwd=folder(iso_home, "report"))
    claude.send_text("finish the report")
    wait_state(iso_home.env, "ready", timeout=40)
    [note] = wait_shown(desktop, 1)
    assert note["body"].startswith("report · Claude Code")
    assert "response ready since" in note["body"]
    assert "All done" not in note["body"] and "finish the report" not in note["body"].split("\n")[-1]
    # Another session's reply is the next notification: the first one was not sent again meanwhile.
    model_server.script(text("Second."))
    other = claude_tmux()
    other.send_text("another task")
    shown = wait_shown(desktop, 2)
    assert len(shown) == 2 and shown[0]["id"] != shown[1]["id"]
    # Both went through, and lunavect says so (issue 48, item 3: it said "sent" whatever happened).
    listed = _delivery_lines(iso_home.env, lambda lines: len(lines) == 2 and all(x.startswith("sent ") for x in lines))
    assert len(listed) == 2
    assert "notifications:" not in lunavect(iso_home.env, "doctor").stdout


def _delivery_lines(env: dict[str, str], done, timeout: float = 30) -> list[str]:
    """The notifications `notifications status` lists (one a line, with how each went), once `done` says so."""
    deadline = time.monotonic() + timeout
    while True:
        status = lunavect(env, "notifications", "status")
        assert status.returncode == 0, status.stderr
        lines = [line for line in status.stdout.splitlines() if " claude:" in line]
        if done(lines):
            return lines
        assert time.monotonic() < deadline, status.stdout
        time.sleep(0.5)


def test_without_a_session_bus_each_notification_is_reported_failed_with_its_reason(
    claude_tmux, model_server, iso_home
):
    """A collector started where no session bus can be reached (over SSH, in a container, from a shell without
    D-Bus) cannot show a notification: `notifications status` lists each as failed with the reason, and
    `doctor` names the failures (issue 48, item 3: both said all was well)."""
    env = {k: v for k, v in iso_home.env.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY")}
    collector = Collector(env).start()
    try:
        model_server.script(text("All done."))
        claude = claude_tmux(cwd=folder(iso_home, "report"))
        claude.send_text("finish the report")
        wait_state(env, "ready", timeout=40)
        [line] = _delivery_lines(env, lambda lines: any(not x.startswith("sending ") for x in lines))
        assert line.startswith("failed ") and " ready claude:" in line, line
        assert "desktop: " in line and "DBUS_SESSION_BUS_ADDRESS" in line, line
        doctor = lunavect(env, "doctor")
        assert doctor.returncode == 1, doctor.stdout
        assert "notifications: the last 1 failed (desktop: " in doctor.stdout, doctor.stdout
        assert "no problems found" not in doctor.stdout
    finally:
        collector.kill()


def test_a_background_task_holds_the_notification_until_its_completion_reply(
    claude_tmux, model_server, iso_home, desktop, collector
):
    model_server.script(
        tool_use("Bash", {"command": "sleep 6", "description": "long job", "run_in_background": True}),
        text("Started it in the background."),
        text("The background job finished."),
    )
    claude = claude_tmux("--allowedTools", "Bash")
    claude.send_text("start the job")
    wait_state(iso_home.env, "background", timeout=40)
    wait_state(iso_home.env, "ready", timeout=60)
    shown = wait_shown(desktop, 1)
    assert len(shown) == 1 and "response ready" in shown[0]["body"]
    assert desktop.shown() == shown  # nothing came for the reply that started the task


def test_a_reply_to_a_task_event_after_the_reply_ended_stays_silent(
    claude_tmux, model_server, iso_home, desktop, collector
):
    # A dev server does not hold the reply (ready at once); when it ends, Claude wakes for the task's
    # notification and replies again: the guide keeps that reply silent.
    model_server.script(
        tool_use(
            "Bash",
            {"command": "python3 -m http.server 0 --bind 127.0.0.1 & sleep 5; kill $!", "run_in_background": True},
        ),
        text("The server runs."),
        text("The server stopped."),
    )
    quiet_period(iso_home, 0.0)  # so that only the task-reply rule can keep the second reply silent
    # acceptEdits: auto mode would ask the person first (its safety check cannot reach the scripted server).
    claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits", cwd=folder(iso_home, "serve"))
    claude.send_text("serve the folder for a moment")
    wait_state(iso_home.env, "ready", timeout=40)
    [first] = wait_shown(desktop, 1)
    model_server.wait_for_main(3, timeout=60)  # Claude woke for the task's end and was answered
    wait_state(iso_home.env, "ready", timeout=40)
    claude.wait_for_screen("The server stopped", timeout=30)
    model_server.script(text("Other."))
    claude_tmux(cwd=folder(iso_home, "another")).send_text("another task")
    shown = wait_shown(desktop, 2)
    assert len(shown) == 2 and shown[1]["body"].startswith("another · "), shown


def test_a_permission_prompt_names_the_tool(claude_tmux, model_server, iso_home, desktop, collector):
    model_server.script(tool_use("Bash", {"command": "echo hi > marker.txt", "description": "write"}), text("Done."))
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("write the marker")
    wait_state(iso_home.env, "permission", timeout=30)
    [note] = wait_shown(desktop, 1)
    assert "permission for Bash" in note["body"]


def approve(claude, env: dict[str, str], key: str, approved_by: str) -> None:
    """Allow the permission prompt on `claude`'s screen, as `approved_by` says: `lunavect answer`, or the person
    pressing 1 in the pane."""
    if approved_by == "lunavect answer":
        answered = lunavect(env, "answer", key, "allow")
        assert answered.returncode == 0, answered.stdout + answered.stderr
    else:
        claude.answer("1", until_gone=PERMISSION_DIALOG)


@pytest.mark.parametrize("approved_by", ["the person in the pane", "lunavect answer"])
def test_a_permission_notification_is_withdrawn_once_the_prompt_is_answered(
    claude_tmux, model_server, iso_home, desktop, collector, approved_by
):
    """Permission and input notifications never expire: one left on the desktop after the prompt was answered
    opens a session that needs nothing (issue 48, item 5). It is withdrawn once its reason is gone; the approved
    command runs 10 s, so no other notification comes meanwhile."""
    model_server.script(
        tool_use("Bash", {"command": "python3 -c 'import time; time.sleep(10)' && touch done.txt", "description": "w"}),
        text("Done."),
    )
    claude = claude_tmux("--permission-mode", "default", cwd=folder(iso_home, "withdraw"))
    claude.send_text("write the file")
    row = wait_state(iso_home.env, "permission", timeout=30)
    desktop.wait(lambda: desktop.displayed() == 1, timeout=30, what="the permission notification")
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    approve(claude, iso_home.env, row["id"], approved_by)

    desktop.wait(lambda: desktop.displayed() == 0, timeout=8, what="the permission notification withdrawn")
    [closed] = desktop.history()  # closed by lunavect: the test closed nothing
    assert "permission for Bash" in closed["body"] and closed["body"].startswith("withdraw · ")
    assert wait_state(iso_home.env, "working", timeout=5)["activity"] == "Bash"


@pytest.mark.parametrize("approved_by", ["the person in the pane", "lunavect answer"])
def test_the_reply_after_the_person_approved_notifies_within_the_quiet_period(
    claude_tmux, model_server, iso_home, desktop, collector, approved_by
):
    # Permission, notified; the person approves and walks away; the reply is ready 10 s later, well inside the
    # 30 s quiet period that keeps a flapping session silent: it is news, and notifies.
    model_server.script(
        tool_use("Bash", {"command": "touch approved.txt", "description": "write"}), delayed(10, text("Written."))
    )
    claude = claude_tmux("--permission-mode", "default", cwd=folder(iso_home, "approve"))
    claude.send_text("write the file")
    row = wait_state(iso_home.env, "permission", timeout=30)
    [asked] = wait_shown(desktop, 1)
    assert "permission for Bash" in asked["body"]
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    approve(claude, iso_home.env, row["id"], approved_by)
    approved_at = time.monotonic()
    wait_state(iso_home.env, "ready", timeout=40)
    assert time.monotonic() - approved_at < 25  # the reply came inside the quiet period
    shown = wait_shown(desktop, 2, timeout=30)
    assert len(shown) == 2 and "response ready" in shown[1]["body"] and shown[1]["body"].startswith("approve · ")


def test_a_429_says_the_limit_was_reached(claude_tmux, model_server, iso_home, desktop, collector):
    model_server.script(error(429))
    claude = claude_tmux()
    claude.send_text("hello")
    wait_state(iso_home.env, "error", timeout=40)
    [note] = wait_shown(desktop, 1)
    assert "API error: limit reached" in note["body"]


def test_not_for_the_pane_the_person_is_looking_at(claude_tmux, model_server, iso_home, desktop, collector):
    watched = claude_tmux()
    # A tmux client attached to the session's server shows its pane (the client runs in a pane of another,
    # outer tmux server, which gives it a terminal).
    outer = str(iso_home.root / "outer.sock")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    subprocess.run(
        [
            "tmux",
            "-S",
            outer,
            "new-session",
            "-d",
            "-x",
            "200",
            "-y",
            "50",
            f"tmux -S {watched.socket} attach -t {watched.session}",
        ],
        env=env,
        check=True,
        timeout=10,
    )
    try:
        desktop.wait(lambda: bool(watched.tmux("list-clients", "-F", "#{client_name}").stdout.strip()), what="a client")
        model_server.script(text("Looked at."))
        watched.send_text("while I watch")
        wait_state(iso_home.env, "ready", timeout=40)
        model_server.script(text("Not looked at."))
        other = claude_tmux(cwd=folder(iso_home, "elsewhere"))
        other.send_text("while I look elsewhere")
        [note] = wait_shown(desktop, 1)
        assert note["body"].startswith("elsewhere · ")
        assert desktop.shown() == [note]
    finally:
        subprocess.run(["tmux", "-S", outer, "kill-server"], env=env, timeout=10, check=False)


def test_five_sessions_ready_at_once_make_one_notification(claude_tmux, model_server, iso_home, desktop, collector):
    barrier = threading.Barrier(5, timeout=60)

    def together(_request):
        barrier.wait()
        return text("Done together.")

    model_server.script(*[custom(together) for _ in range(5)])
    sessions = [claude_tmux(cwd=folder(iso_home, f"project{n}")) for n in range(5)]
    for n, claude in enumerate(sessions):
        claude.send_text(f"task number {n}")
    [note] = wait_shown(desktop, 1)
    assert note["summary"] == "5 sessions: response ready"
    for n in range(5):
        assert f"project{n}" in note["body"]


def test_a_restarted_collector_sends_nothing_again(claude_tmux, model_server, iso_home, desktop, collector):
    model_server.script(text("First."))
    claude_tmux(cwd=folder(iso_home, "first")).send_text("first task")
    wait_shown(desktop, 1)
    collector.kill()
    collector.start()
    model_server.script(text("Second."))
    claude_tmux(cwd=folder(iso_home, "second")).send_text("second task")
    shown = wait_shown(desktop, 2)
    assert [n["body"].split(" · ")[0] for n in shown] == ["first", "second"]


def test_the_default_action_selects_the_sessions_pane(claude_tmux, model_server, iso_home, desktop, collector):
    claude = claude_tmux()
    claude.tmux("new-window", "-d", "-t", claude.session)
    model_server.script(text("Ready for you."))
    claude.send_text("select me later")
    wait_state(iso_home.env, "ready", timeout=40)
    desktop.wait(lambda: desktop.displayed() >= 1, what="the notification")
    claude.tmux("select-window", "-t", f"{claude.session}:1")
    assert claude.tmux("display-message", "-p", "-t", claude.target, "#{window_active}").stdout.strip() == "0"
    assert desktop.ctl("action", "0").returncode == 0
    desktop.wait(
        lambda: claude.tmux("display-message", "-p", "-t", claude.target, "#{window_active}").stdout.strip() == "1",
        what="the session's window to be selected",
    )


def test_a_codex_reply_notifies_too(client_paths, iso_home, codex_server, desktop):
    from codex_harness import codex_env, install_hooks, start_tui, wait_session, write_config
    from responses_server import message

    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    env = codex_env(iso_home, client_paths)
    write_config(iso_home, codex_server)
    install_hooks(env)
    codex_server.script(message("Codex is done."))
    running = Collector({**env, **desktop.env}).start()
    tui = start_tui(client_paths, iso_home, env)
    try:
        tui.send_text("say when you are done")
        wait_session(env, lambda s: s["state"] == "ready", timeout=60)
        [note] = wait_shown(desktop, 1)
        assert "Codex" in note["body"] and "response ready" in note["body"]
        assert "Codex is done" not in note["summary"] + note["body"]
    finally:
        tui.kill()
        running.kill()


def test_the_x11_active_window_is_read_through_ewmh(desktop):
    """X11's focused window (EWMH `_NET_ACTIVE_WINDOW`, its `_NET_WM_PID`) as a window manager would set it:
    here the root window stands in for a terminal's window, with this test's pid."""
    from lunavect.navigation.watched import focused_window_pid

    env = {**os.environ, **desktop.env}
    root = subprocess.run(["xwininfo", "-root"], env=env, capture_output=True, text=True, check=True, timeout=10)
    window = next(line.split()[3] for line in root.stdout.splitlines() if "Window id:" in line)
    assert focused_window_pid({"DISPLAY": desktop.env["DISPLAY"]}, platform="linux") is None  # nothing focused
    for prop, fmt, value in (("_NET_ACTIVE_WINDOW", "32x", window), ("_NET_WM_PID", "32c", str(os.getpid()))):
        subprocess.run(["xprop", "-root", "-f", prop, fmt, "-set", prop, value], env=env, check=True, timeout=10)
    assert focused_window_pid({"DISPLAY": desktop.env["DISPLAY"]}, platform="linux") == os.getpid()
