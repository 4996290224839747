"""`lunavect open` for the real OpenCode 1.18.33: its session is brought to its exact tmux pane from another
tmux session a real attached client shows (the plugin's process facts: pid, start, terminal), and once its
process has ended it is never focused again: `open` names the command that resumes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from chat_server import ChatServer, reply
from open_support import AttachedClient, Tmux
from opencode_harness import READY_RE, ensure_opencode, opencode_env, opencode_pid, prepare


def _lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=env, capture_output=True, text=True, timeout=90,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _session(env: dict[str, str], predicate, timeout: float = 40) -> dict:
    from lunavect_probe import wait_for

    return wait_for(env, lambda s: s["provider"] == "opencode" and predicate(s), timeout=timeout)


def test_open_focuses_its_pane_and_resumes_it_once_ended(iso_home, chat_server: ChatServer) -> None:
    command = ensure_opencode()
    env = opencode_env(iso_home, command)
    prepare(iso_home, chat_server)
    chat_server.script(reply("Reply for the pane"))
    tmux = Tmux(iso_home.root, env)
    client: AttachedClient | None = None
    try:
        tmux.new_session("home", iso_home.work, "sh")
        pane = tmux.new_session("work", iso_home.work, "opencode")
        tmux.wait_screen(pane, READY_RE.pattern)
        tmux.send_text(pane, "say something")
        tmux.wait_screen(pane, "Reply for the pane")
        ready = _session(env, lambda s: s["state"] == "ready")
        assert ready["tty"] == tmux.pane_value(pane, "#{pane_tty}")

        client = AttachedClient(tmux, "home")
        assert tmux.client_pane(client.name) != pane
        proc = _lunavect(env, "open", ready["id"], "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert (result["outcome"], result["terminal"], result["target"]) == ("focused", "tmux", pane), result
        assert tmux.client_pane(client.name) == pane

        os.kill(opencode_pid(int(tmux.pane_value(pane, "#{pane_pid}"))), signal.SIGKILL)
        _session(env, lambda s: not s["open"])
        proc = _lunavect(env, "open", ready["id"], "--resume-in", "print")
        assert f"opencode --session {ready['session_id']}" in proc.stdout, proc.stdout + proc.stderr
    finally:
        if client is not None:
            client.close()
        tmux.kill()
