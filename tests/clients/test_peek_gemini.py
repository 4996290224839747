"""`lunavect show|reply|answer` against the real Gemini CLI 0.61.0 under tmux and the scripted Gemini API: show
prints the conversation from its chat file, a reply reaches the server as the next prompt, and `answer allow`
presses the confirmation's own key for "Allow once"."""

from __future__ import annotations

from gemini_harness import at_the_marker_permission, lunavect, start_gemini, wait_permission, wait_reply, wait_session
from gemini_server import GeminiServer, shell, text, text_contains


def test_show_reply_and_answer(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    marker = iso.work / "marker"
    gemini_server.script(text("Gemini reply ZETA-31"), text("Marker written IOTA"))  # the second: after the tool
    gemini_server.script(shell(f"touch {marker}"), match=text_contains("THETA"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("first gemini prompt")
        sid = wait_reply(client, env, "Gemini reply ZETA-31")["id"]

        shown = lunavect(env, "show", sid)
        assert shown.returncode == 0, shown.stderr
        assert "first gemini prompt" in shown.stdout and "Gemini reply ZETA-31" in shown.stdout

        sent = lunavect(env, "reply", sid, "write the marker THETA")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        request = gemini_server.wait_for(lambda r: "THETA" in r.last_user_text(), timeout=30)
        assert request.last_user_text() == "write the marker THETA"
        wait_permission(client, env)

        allowed = lunavect(env, "answer", sid, "allow")
        assert allowed.returncode == 0, allowed.stdout + allowed.stderr

        client.wait_for_screen("Marker written IOTA", timeout=40)
        assert marker.exists()
        wait_session(env, lambda s: s["state"] == "ready", timeout=30)
        shown = lunavect(env, "show", sid, "--last", "4").stdout
        assert "Marker written IOTA" in shown
    finally:
        client.kill()


def test_answer_deny_presses_esc_and_the_turn_ends_idle(gemini, gemini_server: GeminiServer) -> None:
    env = gemini[2]
    with at_the_marker_permission(gemini, gemini_server) as (_client, marker, asking):
        denied = lunavect(env, "answer", asking["id"], "deny")
        assert denied.returncode == 0, denied.stdout + denied.stderr

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=20)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
        assert not marker.exists() and len(gemini_server.stream_requests) == 1
