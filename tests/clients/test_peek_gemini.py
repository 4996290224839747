"""`lunavect show|reply|answer` against the real Gemini CLI 0.61.0 under tmux and the scripted Gemini API: show
prints the conversation from its chat file, a reply reaches the server as the next prompt, and `answer allow`
presses the confirmation's own key for "Allow once"."""

from __future__ import annotations

import shutil

import pytest
from gemini_harness import PERMISSION_RE, gemini_env, lunavect, start_gemini, wait_session, write_settings
from gemini_server import GeminiServer, shell, text, text_contains


@pytest.fixture
def gemini_server():
    with GeminiServer() as server:
        yield server


@pytest.fixture
def gemini(client_paths, iso_home, gemini_server):
    if client_paths.gemini is None:
        pytest.skip("the pinned Gemini CLI is not installed")
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    return client_paths, iso_home, gemini_env(iso_home, gemini_server)


def test_show_reply_and_answer(gemini, gemini_server: GeminiServer) -> None:
    paths, iso, env = gemini
    write_settings(iso)
    marker = iso.work / "marker"
    gemini_server.script(text("Gemini reply ZETA-31"), text("Marker written IOTA"))  # the second: after the tool
    gemini_server.script(shell(f"touch {marker}"), match=text_contains("THETA"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("first gemini prompt")
        client.wait_for_screen("Gemini reply ZETA-31", timeout=40)
        sid = wait_session(env, lambda s: s["state"] == "ready", timeout=30)["id"]

        shown = lunavect(env, "show", sid)
        assert shown.returncode == 0, shown.stderr
        assert "first gemini prompt" in shown.stdout and "Gemini reply ZETA-31" in shown.stdout

        sent = lunavect(env, "reply", sid, "write the marker THETA")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        request = gemini_server.wait_for(lambda r: "THETA" in r.last_user_text(), timeout=30)
        assert request.last_user_text() == "write the marker THETA"
        client.wait_for_screen(PERMISSION_RE.pattern, timeout=40)
        wait_session(env, lambda s: s["state"] == "permission", timeout=30)

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
    paths, iso, env = gemini
    write_settings(iso)
    marker = iso.work / "marker"
    gemini_server.script(shell(f"touch {marker}"), text("should not come"))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("make the marker")
        client.wait_for_screen(PERMISSION_RE.pattern, timeout=40)
        sid = wait_session(env, lambda s: s["state"] == "permission", timeout=30)["id"]

        denied = lunavect(env, "answer", sid, "deny")
        assert denied.returncode == 0, denied.stdout + denied.stderr

        after = wait_session(env, lambda s: s["state"] != "permission", timeout=20)
        assert (after["state"], after["basis"]) == ("idle", ["transcript"])
        assert not marker.exists() and len(gemini_server.stream_requests) == 1
    finally:
        client.kill()
