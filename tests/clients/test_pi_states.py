"""The real interactive Pi 0.73.1 under tmux against the scripted Chat Completions API, watched by lunavect through
its extension (installed by `lunavect hooks install`, as the iso fixture does) and its session files.

A person types into the client (`send-keys -l`, then Enter), presses Esc, or kills it; lunavect must show each
state the extension and the session file give, and never leave a failed, cancelled or killed session working.
What each test observed is in NOTES.md.
"""

from __future__ import annotations

import pytest
from chat_server import ChatServer, reply
from pi_harness import start_pi, wait_session, without_extension


@pytest.mark.parametrize("extension", [True, False], ids=["extension", "session-file-only"])
def test_a_reply_is_ready_with_its_title_and_usage(pi, chat_server: ChatServer, extension: bool) -> None:
    command, iso, env = pi
    if not extension:
        without_extension(iso)
    chat_server.script(reply("Hello from the script", usage={"prompt_tokens": 1000, "completion_tokens": 7}))
    client = start_pi(command, iso, env)
    try:
        client.send_text("say hello")
        client.wait_for_screen("Hello from the script", timeout=60)
        ready = wait_session(env, lambda s: s["state"] == "ready", timeout=40)
        assert ready["title"] == "say hello" and ready["cwd"] == str(iso.work)
        assert ready["id"] == f"pi:{ready['session_id']}"
        assert ready["usage"]["tokens"]["output"] == 7 and ready["usage"]["model"] == "m"
        if extension:
            assert ready["basis"] == ["hook"]
            assert ready["pid"] == client.pid() and ready["tty"] == client.pane_tty()
        assert ready["resume"] == f"cd {iso.work} && pi --session {ready['session_id']}"
    finally:
        client.kill()
