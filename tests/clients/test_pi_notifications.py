"""Notifications from the real Pi 0.73.1 (through lunavect's extension), on a real D-Bus session bus with dunst
under Xvfb, as for Claude Code (the desktop and collector fixtures of conftest.py): a reply that ends notifies
once, named by its project and client and without its text; a failed turn names its error, not its message."""

from __future__ import annotations

from chat_server import ChatServer, error, reply
from lunavect_probe import wait_for
from notifications_support import wait_shown
from pi_harness import start_pi


def test_a_reply_and_an_error_notify(pi, desktop, collector, chat_server: ChatServer) -> None:  # noqa: F811
    command, iso, env = pi
    project = iso.work / "report"
    project.mkdir()
    env = {**env, **desktop.env}
    chat_server.script(reply("All done ZETA-3"), error(401, "Scripted refusal OMEGA-9"))
    client = start_pi(command, iso, env, cwd=project)
    try:
        client.send_text("finish the report")
        wait_for(env, lambda s: s["provider"] == "pi" and s["state"] == "ready", timeout=60)
        [note] = wait_shown(desktop, 1)
        assert note["body"].startswith("report · Pi") and "response ready since" in note["body"], note
        assert "ZETA" not in note["body"] and "finish the report" not in note["body"]

        client.send_text("try again")
        wait_for(env, lambda s: s["provider"] == "pi" and s["state"] == "error", timeout=60)
        shown = wait_shown(desktop, 2)
        assert len(shown) == 2 and "API error" in shown[1]["body"] and "OMEGA" not in shown[1]["body"], shown
    finally:
        client.kill()
