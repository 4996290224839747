"""`lunavect show|reply|answer` against the real Qwen Code 0.24.4 under tmux and the scripted Chat Completions API:
show prints the conversation from its chat file, a reply typed into its empty input box reaches the server as the
next prompt, and `answer` refuses with the reason (its approvals are answered in its own pane)."""

from __future__ import annotations

from chat_server import ChatServer, reply
from lunavect_probe import installed_lunavect as lunavect
from qwen_harness import WAITING_RE, shell, start_qwen, wait_session


def test_show_reply_and_answer_refused(qwen, chat_server: ChatServer) -> None:
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

        refused = lunavect(env, "answer", sid, "allow")
        assert refused.returncode != 0 and "Qwen Code" in refused.stdout + refused.stderr
        assert not marker.exists()

        client.send_keys("Enter")  # answered in its own pane
        client.wait_for_screen("Marker written IOTA", timeout=60)
        wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        shown = lunavect(env, "show", sid, "--last", "4").stdout
        assert "Marker written IOTA" in shown and "run_shell_command" in shown
    finally:
        client.kill()
