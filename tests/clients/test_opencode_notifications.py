"""Notifications from the real OpenCode 1.18.33 (through its lunavect plugin), on a real D-Bus session bus with
dunst under Xvfb, as for Claude Code (test_notifications.py: its desktop and collector): a reply that ends
notifies once, named by its project and client and without its text; a permission prompt names its tool."""

from __future__ import annotations

import shutil

import pytest
from chat_server import ChatServer, bash, reply
from lunavect_probe import wait_for
from notifications_support import wait_shown
from opencode_harness import PERMISSION_RE, ensure_opencode, opencode_env, prepare, start_tui


def test_a_reply_and_a_permission_prompt_notify(iso_home, desktop, collector, chat_server: ChatServer) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    command = ensure_opencode()
    project = iso_home.work / "report"
    project.mkdir()
    env = {**opencode_env(iso_home, command), **desktop.env}
    prepare(iso_home, chat_server, permission={"bash": "ask"})
    chat_server.script(reply("All done ZETA-3"), bash("echo never-shown-OMEGA"))
    tui = start_tui(command, iso_home, env, cwd=project)
    try:
        tui.send_text("finish the report")
        wait_for(env, lambda s: s["provider"] == "opencode" and s["state"] == "ready", timeout=40)
        [note] = wait_shown(desktop, 1)
        assert note["body"].startswith("report · OpenCode") and "response ready since" in note["body"], note
        assert "ZETA" not in note["body"] and "finish the report" not in note["body"]

        tui.send_text("run it")
        tui.wait_for_screen(PERMISSION_RE)
        shown = wait_shown(desktop, 2)
        assert len(shown) == 2 and "permission for bash" in shown[1]["body"], shown
        assert "OMEGA" not in shown[1]["body"]
    finally:
        tui.kill()
