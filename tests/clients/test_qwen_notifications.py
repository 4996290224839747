"""Notifications from the real Qwen Code 0.24.4 (through its hooks), on a real D-Bus session bus with dunst under
Xvfb, as for Claude Code (the desktop and collector fixtures of conftest.py): a reply that ends notifies once,
named by its project and client and without its text; an approval it waits for notifies; a failed turn names its
error, not its message."""

from __future__ import annotations

from chat_server import ChatServer, error, reply
from lunavect_probe import wait_for
from notifications_support import wait_shown
from qwen_harness import WAITING_RE, shell, start_qwen


def test_a_reply_an_approval_and_an_error_notify(qwen, desktop, collector, chat_server: ChatServer) -> None:  # noqa: F811
    command, iso, env = qwen
    project = iso.work / "report"
    project.mkdir()
    env = {**env, **desktop.env}
    chat_server.script(reply("All done ZETA-3"), error(401, "Scripted refusal OMEGA-9"), shell("touch SIGMA-7"))
    client = start_qwen(command, iso, env, cwd=project)
    try:
        client.send_text("finish the report")
        wait_for(env, lambda s: s["provider"] == "qwen" and s["state"] == "ready", timeout=60)
        [note] = wait_shown(desktop, 1)
        assert note["body"].startswith("report · Qwen Code") and "response ready since" in note["body"], note
        assert "ZETA" not in note["body"] and "finish the report" not in note["body"]

        client.send_text("try again")
        wait_for(env, lambda s: s["provider"] == "qwen" and s["state"] == "error", timeout=60)
        shown = wait_shown(desktop, 2)
        assert len(shown) == 2 and "API error" in shown[1]["body"] and "OMEGA" not in shown[1]["body"], shown

        client.send_text("make the file")
        client.wait_for_screen(WAITING_RE, timeout=60)
        wait_for(env, lambda s: s["provider"] == "qwen" and s["state"] == "permission", timeout=60)
        shown = wait_shown(desktop, 3)
        assert len(shown) == 3 and "SIGMA" not in shown[2]["body"], shown
    finally:
        client.kill()
