"""`lunavect show|reply|answer` against the real Qwen Code 0.24.4 under tmux and the scripted Chat Completions API:
show prints the conversation from its chat file, a reply typed into its empty input box reaches the server as the
next prompt, `answer allow` presses the approval's own key for "1. Yes, allow once", and `answer deny` its Esc,
which ends the turn."""

from __future__ import annotations

import time

from chat_server import ChatServer, reply
from lunavect_probe import installed_lunavect as lunavect
from qwen_harness import WAITING_RE, at_the_marker_permission, shell, start_qwen, wait_session


def test_show_reply_and_answer(qwen, chat_server: ChatServer) -> None:
    command, iso, env = qwen
    marker = iso.work / "marker"
    chat_server.script(reply("Qwen reply ZETA-31"), shell(f"touch {marker}"), reply("Marker written IOTA"))
    client = start_qwen(command, iso, env)
    try:
        client.send_text("first qwen prompt")
        client.wait_for_screen("Qwen reply ZETA-31", timeout=60)
        sid = wait_session(env, lambda s: s["state"] == "ready", timeout=40)["id"]

        shown = lunavect(env, "show", sid)
        assert shown.returncode == 0, shown.stderr
        assert "first qwen prompt" in shown.stdout and "Qwen reply ZETA-31" in shown.stdout

        sent = lunavect(env, "reply", sid, "write the marker THETA")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        request = chat_server.wait_for(lambda r: "THETA" in "".join(r.user_texts()), timeout=40)
        assert request.user_texts()[-1].endswith("write the marker THETA")
        client.wait_for_screen(WAITING_RE, timeout=60)
        wait_session(env, lambda s: s["state"] == "permission", timeout=40)

        always = lunavect(env, "answer", sid, "allow-always")
        assert always.returncode != 0 and not marker.exists()  # its "Always allow …" is not answered from outside
        allowed = lunavect(env, "answer", sid, "allow")
        assert allowed.returncode == 0, allowed.stdout + allowed.stderr

        client.wait_for_screen("Marker written IOTA", timeout=60)
        assert marker.exists()
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        # The row's "ready" comes from the Stop hook, which Qwen Code may run before its chat file holds the reply.
        shown = ""
        deadline = time.monotonic() + 20
        while "Marker written IOTA" not in shown and time.monotonic() < deadline:
            time.sleep(0.3)
            shown = lunavect(env, "show", sid, "--last", "4").stdout
        assert "Marker written IOTA" in shown and "run_shell_command" in shown
    finally:
        client.kill()


def test_answer_deny_presses_esc_and_the_turn_ends_idle(qwen, chat_server: ChatServer) -> None:
    env = qwen[2]
    with at_the_marker_permission(qwen, chat_server, reply("should not come")) as (_client, marker, asking):
        denied = lunavect(env, "answer", asking["id"], "deny")
        assert denied.returncode == 0, denied.stdout + denied.stderr

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=30)
        assert after["state"] == "idle"
        assert not marker.exists() and len(chat_server.main_requests()) == 1
