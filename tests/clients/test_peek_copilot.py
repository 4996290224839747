"""`lunavect show|reply|answer` against the real GitHub Copilot CLI 1.0.102 under tmux and the scripted Chat
Completions API: show prints the conversation from its events file, a reply reaches the server as the next
prompt, `answer allow` presses the approval's own key for "1. Yes", and `answer deny` its Esc, which ends the
turn."""

from __future__ import annotations

from chat_server import ChatServer, reply
from copilot_harness import PERMISSION_RE, at_the_marker_permission, shell, start_copilot, wait_session
from lunavect_probe import installed_lunavect as lunavect


def test_show_reply_and_answer(copilot, chat_server: ChatServer) -> None:
    command, iso, env = copilot
    marker = iso.work / "marker"
    chat_server.script(reply("Copilot reply ZETA-31"), shell(f"touch {marker}"), reply("Marker written IOTA"))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("first copilot prompt")
        client.wait_for_screen("Copilot reply ZETA-31", timeout=60)
        sid = wait_session(env, lambda s: s["state"] == "ready", timeout=40)["id"]

        shown = lunavect(env, "show", sid)
        assert shown.returncode == 0, shown.stderr
        assert "first copilot prompt" in shown.stdout and "Copilot reply ZETA-31" in shown.stdout

        sent = lunavect(env, "reply", sid, "write the marker THETA")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        request = chat_server.wait_for(lambda r: "THETA" in "".join(r.user_texts()), timeout=40)
        assert request.user_texts()[-1].endswith("write the marker THETA")
        client.wait_for_screen(PERMISSION_RE, timeout=60)
        wait_session(env, lambda s: s["state"] == "permission", timeout=40)

        allowed = lunavect(env, "answer", sid, "allow")
        assert allowed.returncode == 0, allowed.stdout + allowed.stderr

        client.wait_for_screen("Marker written IOTA", timeout=60)
        assert marker.exists()
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        shown = lunavect(env, "show", sid, "--last", "4").stdout
        assert "Marker written IOTA" in shown
    finally:
        client.kill()


def test_answer_deny_presses_esc_and_the_turn_ends_idle(copilot, chat_server: ChatServer) -> None:
    env = copilot[2]
    with at_the_marker_permission(copilot, chat_server) as (_client, marker, asking):
        denied = lunavect(env, "answer", asking["id"], "deny")
        assert denied.returncode == 0, denied.stdout + denied.stderr

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=30)
        assert after["state"] == "idle"
        assert not marker.exists() and len(chat_server.main_requests()) == 1
