"""Notifications from the real GitHub Copilot CLI 1.0.102 (through its lunavect hooks), on a real D-Bus session bus
with dunst under Xvfb, as for Claude Code (the desktop and collector fixtures of conftest.py): a reply that ends
notifies once, named by its project and client and without its text; an approval names its tool."""

from __future__ import annotations

from chat_server import ChatServer, reply
from copilot_harness import PERMISSION_RE, prepare, shell, start_copilot
from lunavect_probe import wait_for
from notifications_support import wait_shown


def test_a_reply_and_an_approval_notify(copilot, desktop, collector, chat_server: ChatServer) -> None:  # noqa: F811
    command, iso, env = copilot
    project = iso.work / "report"
    project.mkdir()
    prepare(iso, project)
    env = {**env, **desktop.env}
    chat_server.script(reply("All done ZETA-3"), shell("touch never-made-OMEGA"))
    client = start_copilot(command, iso, env, cwd=project)
    try:
        client.send_text("finish the report")
        wait_for(env, lambda s: s["provider"] == "copilot" and s["state"] == "ready", timeout=60)
        [note] = wait_shown(desktop, 1)
        assert note["body"].startswith("report · GitHub Copilot CLI") and "response ready since" in note["body"], note
        assert "ZETA" not in note["body"] and "finish the report" not in note["body"]

        client.send_text("run it")
        client.wait_for_screen(PERMISSION_RE, timeout=60)
        shown = wait_shown(desktop, 2)
        assert len(shown) == 2 and "permission for bash" in shown[1]["body"], shown
        assert "OMEGA" not in shown[1]["body"]
    finally:
        client.kill()
