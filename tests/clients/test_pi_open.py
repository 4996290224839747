"""`lunavect open` for the real Pi 0.73.1: its session is brought to its exact tmux pane from another tmux session a
real attached client shows (its extension's process facts: Pi's pid, start and terminal), and once its process
has ended it is never focused again: `open` names the command that resumes it, from its folder."""

from __future__ import annotations

from chat_server import ChatServer, reply
from open_support import open_focuses_then_resumes
from pi_harness import READY_RE


def test_open_focuses_its_pane_and_resumes_it_once_ended(pi, chat_server: ChatServer) -> None:
    _command, iso, env = pi
    chat_server.script(reply("Reply for the pane"))
    open_focuses_then_resumes(
        iso, env, command="pi", provider="pi", ready_pattern=READY_RE.pattern,
        is_process=lambda info: info["comm"] == "pi", resumes_with="cd {work} && pi --session {session_id}",
    )  # fmt: skip
