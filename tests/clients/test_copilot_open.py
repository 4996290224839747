"""`lunavect open` for the real GitHub Copilot CLI 1.0.102: its session is brought to its exact tmux pane from
another tmux session a real attached client shows (its hooks' process facts: the native binary's pid, start and
terminal), and once its process has ended it is never focused again: `open` names the command that resumes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from chat_server import ChatServer, reply
from claude_tmux import process_under
from copilot_harness import READY_RE
from lunavect_probe import wait_for
from open_support import AttachedClient, Tmux


def _lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=env, capture_output=True, text=True, timeout=90,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _native(info: dict) -> bool:
    return os.path.basename(info["exe"] or "") == "copilot"


def test_open_focuses_its_pane_and_resumes_it_once_ended(copilot, chat_server: ChatServer) -> None:
    _command, iso, env = copilot
    chat_server.script(reply("Reply for the pane"))
    tmux = Tmux(iso.root, env)
    client: AttachedClient | None = None
    try:
        tmux.new_session("home", iso.work, "sh")
        pane = tmux.new_session("work", iso.work, "copilot")
        tmux.wait_screen(pane, READY_RE.pattern, timeout=90)
        tmux.send_text(pane, "say something")
        tmux.wait_screen(pane, "Reply for the pane")
        ready = wait_for(env, lambda s: s["provider"] == "copilot" and s["state"] == "ready", timeout=40)
        assert ready["tty"] == tmux.pane_value(pane, "#{pane_tty}")

        client = AttachedClient(tmux, "home")
        assert tmux.client_pane(client.name) != pane
        proc = _lunavect(env, "open", ready["id"], "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert (result["outcome"], result["terminal"], result["target"]) == ("focused", "tmux", pane), result
        assert tmux.client_pane(client.name) == pane

        native = process_under(int(tmux.pane_value(pane, "#{pane_pid}")), _native)
        assert native is not None and native == ready["pid"]
        os.kill(native, signal.SIGKILL)
        wait_for(env, lambda s: s["provider"] == "copilot" and not s["open"], timeout=30)
        proc = _lunavect(env, "open", ready["id"], "--resume-in", "print")
        assert f"copilot --resume {ready['session_id']}" in proc.stdout, proc.stdout + proc.stderr
    finally:
        if client is not None:
            client.close()
        tmux.kill()
