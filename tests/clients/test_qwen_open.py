"""`lunavect open` for the real Qwen Code 0.24.4: its session is brought to its exact tmux pane from another tmux
session a real attached client shows (its hooks' process facts: the session's node process, its start and
terminal), and once its process has ended it is never focused again: `open` names the command that resumes it,
from its folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from chat_server import ChatServer, reply
from claude_tmux import process_under
from lunavect_probe import wait_for
from open_support import AttachedClient, Tmux
from qwen_harness import READY_RE, is_session


def _lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=env, capture_output=True, text=True, timeout=90,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_open_focuses_its_pane_and_resumes_it_once_ended(qwen, chat_server: ChatServer) -> None:
    _command, iso, env = qwen
    chat_server.script(reply("Reply for the pane"))
    tmux = Tmux(iso.root, env)
    client: AttachedClient | None = None
    try:
        tmux.new_session("home", iso.work, "sh")
        pane = tmux.new_session("work", iso.work, "qwen")
        tmux.wait_screen(pane, READY_RE.pattern, timeout=90)
        tmux.send_text(pane, "say something")
        tmux.wait_screen(pane, "Reply for the pane")
        ready = wait_for(env, lambda s: s["provider"] == "qwen" and s["state"] == "ready", timeout=40)
        assert ready["tty"] == tmux.pane_value(pane, "#{pane_tty}")

        client = AttachedClient(tmux, "home")
        assert tmux.client_pane(client.name) != pane
        proc = _lunavect(env, "open", ready["id"], "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert (result["outcome"], result["terminal"], result["target"]) == ("focused", "tmux", pane), result
        assert tmux.client_pane(client.name) == pane

        pid = process_under(int(tmux.pane_value(pane, "#{pane_pid}")), is_session)
        assert pid is not None and pid == ready["pid"]
        os.kill(pid, signal.SIGKILL)
        wait_for(env, lambda s: s["provider"] == "qwen" and not s["open"], timeout=30)
        proc = _lunavect(env, "open", ready["id"], "--resume-in", "print")
        assert f"cd {iso.work} && qwen --resume {ready['session_id']}" in proc.stdout, proc.stdout + proc.stderr
    finally:
        if client is not None:
            client.close()
        tmux.kill()
