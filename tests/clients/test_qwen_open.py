"""`lunavect open` for the real Qwen Code 0.24.4: its session is brought to its exact tmux pane from another tmux
session a real attached client shows (its hooks' process facts: the session's node process, its start and
terminal), and once its process has ended it is never focused again: `open` names the command that resumes it,
from its folder."""

from __future__ import annotations

from chat_server import ChatServer, reply
from open_support import open_focuses_then_resumes
from qwen_harness import READY_RE, is_session


def test_open_focuses_its_pane_and_resumes_it_once_ended(qwen, chat_server: ChatServer) -> None:
    _command, iso, env = qwen
    chat_server.script(reply("Reply for the pane"))
    open_focuses_then_resumes(
        iso, env, command="qwen", provider="qwen", ready_pattern=READY_RE.pattern, is_process=is_session,
        resumes_with="cd {work} && qwen --resume {session_id}",
    )  # fmt: skip
