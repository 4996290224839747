"""Back to the exact pane on another machine, end to end: a real Claude Code session in a tmux pane on "alpha"
(the iso HOME, its own collector), "beta" here (a second lunavect home with its own collector), a real
nats-server between them, and a real OpenSSH server on 127.0.0.1 standing for alpha (`sshd_server`: its logins
run in alpha's HOME and lunavect home).

On beta, inside a tmux of beta's own, `lunavect open` of alpha's live session opens a tmux window running
`ssh -t alpha lunavect open ID --attach`; over ssh, alpha's lunavect makes that terminal a tmux client of the
pane's server, so beta's window shows exactly Claude Code's window with its pane the active one: not the window
alpha's tmux session was showing, and not the other pane of Claude's window selected. A click on the session's notification does the same. Once the
session has ended, `open` runs `ssh alpha -t lunavect resume ID`, and Claude Code resumes it over ssh."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from anthropic_server import text
from claude_tmux import READY_RE, all_pids, proc_info
from lunavect_probe import wait_for
from machines import Machine
from nats_servers import HOSTS
from sshd_server import client_config, missing, sshd
from sync_support import wait_until
from tmux_server import tmux_server

pytestmark = pytest.mark.process

BEAT_S = 1.0
REPLY = "Marker reply from alpha"


@pytest.fixture
def ssh_ready():
    why = missing()
    if why is not None:
        pytest.skip(why)


def _there(claude_env: dict[str, str], claude: str) -> dict[str, str]:
    """What a login on alpha runs with: alpha's HOME, lunavect home and client settings, and a PATH with
    lunavect and the pinned `claude`."""
    names = [name for name in claude_env if name.startswith(("ANTHROPIC_", "CLAUDE_", "DISABLE_", "XDG_"))]
    wanted = {name: claude_env[name] for name in (*names, "HOME", "CODEX_HOME", "LUNAVECT_HOME", "TMPDIR", "LANG")}
    path = [os.path.dirname(sys.executable), os.path.dirname(claude), "/usr/local/bin", "/usr/bin", "/bin"]
    return {**{k: v for k, v in wanted.items() if v is not None}, "PATH": os.pathsep.join(path)}


def _window_shows(here, window: str, wanted: str) -> str:
    def shown() -> str | None:
        screen = here("capture-pane", "-p", "-t", window, check=False)
        return screen if wanted in screen else None

    return wait_until(shown, timeout=60, what=f"{wanted!r} in beta's window {window}")


def _attached_to(claude, pane_id: str) -> None:
    """Exactly one tmux client on alpha's pane server, showing Claude Code's window with its pane selected."""

    def clients() -> list[str]:
        done = claude.tmux("list-clients", "-F", "#{client_session} #{window_id} #{pane_id}", check=False)
        return done.stdout.splitlines()

    window = claude.tmux("display-message", "-p", "-t", pane_id, "#{window_id}").stdout.strip()
    shown = wait_until(lambda: clients() or None, timeout=30, what="a tmux client on alpha")
    assert len(shown) == 1 and shown[0].split()[1:] == [window, pane_id], shown
    # A grouped session: alpha's own session still shows the window it showed.
    assert shown[0].split()[0] != claude.session
    assert claude.tmux("display-message", "-p", "-t", claude.session, "#{window_name}").stdout.strip() == "decoy"


def _command_lines() -> list[list[str]]:
    return [info["cmdline"] for pid in all_pids() if (info := proc_info(pid)) is not None]


def _left(here, claude, window: str) -> None:
    """Close beta's window: ssh ends, and the grouped session with its client."""
    here("kill-window", "-t", window)

    def sessions() -> list[str]:
        return claude.tmux("list-sessions", "-F", "#{session_name}", check=False).stdout.split()

    wait_until(lambda: sessions() == [claude.session], timeout=30, what="the grouped session gone on alpha")


def test_open_attaches_to_the_exact_pane_over_ssh_and_resumes_an_ended_session(
    claude_tmux, model_server, iso_home, client_paths, nats, alpha_synced, ssh_ready, tmp_path, monkeypatch
):
    beta = Machine.create(tmp_path / "hosts", "beta")
    model_server.script(text(REPLY))
    claude = claude_tmux()
    there = _there(iso_home.claude_env(model_server.url), str(client_paths.claude))
    with sshd(tmp_path / "sshd", there) as (port, key):
        beta.env["PATH"] = f"{client_config(Path(beta.env['HOME']), 'alpha', port, key)}{os.pathsep}{beta.env['PATH']}"
        beta.start_collector()
        try:
            assert beta.sync_set(nats.url, HOSTS["beta"], "--beat-seconds", str(BEAT_S)).returncode == 0
            claude.send_text("say the marker")
            claude.wait_for_screen(REPLY, timeout=60)
            pane_id = claude.tmux("display-message", "-p", "-t", claude.target, "#{pane_id}").stdout.strip()
            # Around Claude Code's pane: another pane in its window (selected), and another window that alpha's
            # tmux session shows. A plain attach would show the decoy window; without select-pane, the decoy pane
            # would be the active one (both panes of the window are on the screen, as they are on alpha's).
            claude.tmux("split-window", "-t", claude.target, "sh -c 'echo DECOY-PANE; exec sleep 600'")
            claude.tmux("new-window", "-n", "decoy", "-t", claude.session, "sh -c 'echo DECOY-WINDOW; exec sleep 600'")
            local = wait_for(iso_home.env, lambda s: s["state"] == "ready" and s["open"], timeout=40)
            key_id = local["id"]
            wait_until(
                lambda: (beta.by_id().get(key_id) or {}).get("in_tmux") is True,
                timeout=40,
                what="alpha's row on beta, live in a tmux pane",
            )

            with tmux_server(beta.env) as here:
                env = {**beta.env, "TMUX": here.tmux_variable}
                opened = subprocess.run(
                    [sys.executable, "-m", "lunavect", "open", key_id[:15]],
                    env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                )  # fmt: skip
                assert opened.returncode == 0, opened
                command = f"ssh -t alpha lunavect open {key_id} --attach"
                assert (
                    f"it runs in a tmux pane on alpha; attach to that pane: opened in tmux window main:1: {command}"
                    in (opened.stdout)
                )
                screen = _window_shows(here, "main:1", REPLY)
                assert "DECOY-WINDOW" not in screen, screen
                assert re.search(r"─{10,}", screen), screen  # Claude Code's own prompt box, drawn whole
                _attached_to(claude, pane_id)
                _left(here, claude, "main:1")

                # A click on the session's notification, in beta's notifier: the same way there.
                from lunavect.listing import sessions
                from lunavect.notify.notifier import open_from_notification

                for name, value in env.items():
                    monkeypatch.setenv(name, value)
                open_from_notification(key_id, stored=sessions)
                screen = _window_shows(here, "main:1", REPLY)
                assert "DECOY-WINDOW" not in screen, screen
                _attached_to(claude, pane_id)
                _left(here, claude, "main:1")

                # Ended: resumed over ssh, in a new window (never attached to a pane that holds it no more).
                assert claude.exit(timeout=30)
                wait_until(
                    lambda: (beta.by_id("--all").get(key_id) or {}).get("open") is False,
                    timeout=40,
                    what="alpha's row on beta, ended",
                )
                ended = subprocess.run(
                    [sys.executable, "-m", "lunavect", "open", key_id],
                    env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                )  # fmt: skip
                assert ended.returncode == 0, ended
                assert (
                    f"it has ended on alpha; resume it there: opened in tmux window main:1: ssh alpha -t lunavect resume {key_id}"
                    in ended.stdout
                )
                session_id = key_id.split(":", 1)[1]
                wait_until(
                    lambda: any(session_id in args and "--resume" in args for args in _command_lines()),
                    timeout=60,
                    what="claude --resume running over ssh on alpha",
                )
                screen = _window_shows(here, "main:1", REPLY)  # the resumed conversation, its reply shown again
                assert READY_RE.search(screen) or "❯" in screen, screen
                here("kill-window", "-t", "main:1")
        finally:
            beta.stop_collector()
