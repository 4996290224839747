"""`lunavect open` for the real GitHub Copilot CLI 1.0.102: its session is brought to its exact tmux pane from
another tmux session a real attached client shows (its hooks' process facts: the native binary's pid, start and
terminal), and once its process has ended it is never focused again: `open` names the command that resumes it."""

from __future__ import annotations

import os

from chat_server import ChatServer, reply
from copilot_harness import READY_RE
from open_support import open_focuses_then_resumes


def _native(info: dict) -> bool:
    return os.path.basename(info["exe"] or "") == "copilot"


def test_open_focuses_its_pane_and_resumes_it_once_ended(copilot, chat_server: ChatServer) -> None:
    _command, iso, env = copilot
    chat_server.script(reply("Reply for the pane"))
    open_focuses_then_resumes(
        iso, env, command="copilot", provider="copilot", ready_pattern=READY_RE.pattern, is_process=_native,
        resumes_with="copilot --resume {session_id}",
    )  # fmt: skip
