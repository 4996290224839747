"""`lunavect open` for the real OpenCode 1.18.33: its session is brought to its exact tmux pane from another
tmux session a real attached client shows (the plugin's process facts: pid, start, terminal), and once its
process has ended it is never focused again: `open` names the command that resumes it."""

from __future__ import annotations

from chat_server import ChatServer, reply
from open_support import open_focuses_then_resumes
from opencode_harness import READY_RE, ensure_opencode, is_opencode, opencode_env, prepare


def test_open_focuses_its_pane_and_resumes_it_once_ended(iso_home, chat_server: ChatServer) -> None:
    env = opencode_env(iso_home, ensure_opencode())
    prepare(iso_home, chat_server)
    chat_server.script(reply("Reply for the pane"))
    open_focuses_then_resumes(
        iso_home, env, command="opencode", provider="opencode", ready_pattern=READY_RE.pattern,
        is_process=is_opencode, resumes_with="opencode --session {session_id}",
    )  # fmt: skip
