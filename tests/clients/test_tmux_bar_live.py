"""tmux shows lunavect while the real Claude Code changes state: a real tmux server whose user options the
collector publishes (read back with `show-options`), its status line read from a real attached client (the
client runs in a pane of a second tmux server, whose `capture-pane` shows the whole client screen), the pane's
own `@lunavect_state`, and the popup (prefix a) whose Enter brings the client to the waiting pane."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from anthropic_server import AnthropicServer, has_tools, text, tool_use
from claude_tmux import READY_RE, ClientPaths, IsoHome
from open_support import Tmux

PERMISSION_DIALOG = r"Do you want to proceed\?"


def lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=env, capture_output=True, text=True, timeout=90
    )


def wait(check, what: str, timeout: float = 60, screen=lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not seen in {timeout}s\n{screen()}")
        time.sleep(0.1)


@pytest.fixture
def servers(iso_home: IsoHome, client_paths: ClientPaths, model_server: AnthropicServer):
    """The inner tmux server (in tmux's socket folder, as a person's), and an outer one to look at a client."""
    assert iso_home.lunavect_hooks_installed
    bin_dir = iso_home.root / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(client_paths.claude)
    iso_home.prepare_claude(cwds=[iso_home.work])
    env = iso_home.claude_env(model_server.url)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["TMUX_TMPDIR"] = str(iso_home.root)
    env.pop("TMUX", None)
    folder = iso_home.root / f"tmux-{os.getuid()}"
    folder.mkdir(mode=0o700)
    inner = Tmux(folder, env)
    outer_root = iso_home.root / "outer"
    outer_root.mkdir()
    outer = Tmux(outer_root, env)  # not in tmux's socket folder: lunavect never publishes there
    try:
        yield env, inner, outer
    finally:
        outer.kill()
        inner.kill()


def claude_asks_in_another_window(servers, model_server: AnthropicServer, iso_home: IsoHome) -> tuple[str, str]:
    """lunavect's tmux lines installed, the real Claude told in one window of the inner server to run a command
    it must ask permission for, while the attached client shows another window: (Claude's pane, the outer
    pane that shows the client)."""
    env, inner, outer = servers
    proc = lunavect(env, "tmux", "install")
    assert proc.returncode == 0, proc.stderr
    inner.conf.write_text(f"set -g status on\nsource-file {Path(env['HOME']) / '.tmux.conf'}\n")

    claude = inner.new_session("work", iso_home.work, "claude", "--permission-mode", "default")
    inner("new-window", "-t", "work:", "-c", str(iso_home.work), "sh")  # the client shows this one
    view = outer.new_session("view", iso_home.work, "env", "-u", "TMUX", "tmux", "-S", str(inner.socket), "attach")
    wait(
        lambda: "⚙ 0" in outer.capture(view),
        "the counts in the client's status line",
        screen=lambda: outer.capture(view),
    )

    model_server.script(
        tool_use("Bash", {"command": "echo approved > marker.txt", "description": "write"}),
        text("Done."),
        match=lambda r: has_tools(r) and "print something" in r.last_user_text(),
    )
    inner.wait_screen(claude, READY_RE.pattern, timeout=60)
    inner.send_text(claude, "print something")
    return claude, view


def test_status_line_pane_state_and_popup_follow_the_real_claude(servers, model_server: AnthropicServer, iso_home):
    _env, inner, outer = servers
    claude, view = claude_asks_in_another_window(servers, model_server, iso_home)
    wait(lambda: any("print something" in r.last_user_text() for r in model_server.requests), "the prompt")

    wait(lambda: inner("show-options", "-gqv", "@lunavect_awaiting") == "1", "@lunavect_awaiting = 1")
    # The pane's border says the state in the panel's words.
    assert inner("show-options", "-pqv", "-t", claude, "@lunavect_state") == "Permission needed: Bash"
    wait(lambda: "◆ 1" in outer.capture(view), "◆ 1 in the status line", screen=lambda: outer.capture(view))
    client = inner("list-clients", "-F", "#{client_name}")
    assert inner("display-message", "-p", "-c", client, "#{pane_id}") != claude

    # The popup lists the waiting session; Enter brings the client to its pane.
    outer("send-keys", "-t", view, "C-b", "a")
    wait(lambda: "need you" in outer.capture(view), "the popup", screen=lambda: outer.capture(view))
    assert "Permission needed: Bash · " in outer.capture(view)
    outer("send-keys", "-t", view, "Enter")
    wait(
        lambda: inner("display-message", "-p", "-c", client, "#{pane_id}") == claude,
        "the client on Claude's pane",
        screen=lambda: outer.capture(view),
    )

    # Answered: the counts and the pane's state follow.
    inner.wait_screen(claude, PERMISSION_DIALOG, timeout=20)
    # Claude Code ignores keys that arrive just after its dialog draws (FACTS.md): press again until it is gone.
    deadline = time.monotonic() + 30
    while re.search(PERMISSION_DIALOG, inner.capture(claude)) and time.monotonic() < deadline:
        inner("send-keys", "-t", claude, "Enter")
        time.sleep(1.5)
    wait(lambda: inner("show-options", "-gqv", "@lunavect_awaiting") == "0", "@lunavect_awaiting = 0")
    wait(lambda: "◆ 0" in outer.capture(view), "◆ 0 in the status line", screen=lambda: outer.capture(view))
    wait(lambda: inner("show-options", "-pqv", "-t", claude, "@lunavect_state") in ("Response ready", "Idle"), "ready")


def test_prefix_n_brings_the_client_to_the_session_that_needs_its_person_most(
    servers, model_server: AnthropicServer, iso_home
):
    """The key beside the popup's runs `lunavect next` in a popup: with the real Claude asking permission in
    another window, `prefix N` brings the attached client to its pane and the popup closes; once the session's
    client has exited nothing waits, and the popup stays to say so until Esc."""
    _env, inner, outer = servers
    claude, view = claude_asks_in_another_window(servers, model_server, iso_home)
    wait(lambda: inner("show-options", "-gqv", "@lunavect_awaiting") == "1", "@lunavect_awaiting = 1")
    client = inner("list-clients", "-F", "#{client_name}")
    assert inner("display-message", "-p", "-c", client, "#{pane_id}") != claude

    outer("send-keys", "-t", view, "C-b", "N")
    wait(
        lambda: inner("display-message", "-p", "-c", client, "#{pane_id}") == claude,
        "the client on Claude's pane",
        screen=lambda: outer.capture(view),
    )
    wait(lambda: "focused" not in outer.capture(view) and "┌" not in outer.capture(view), "the popup closed")

    # The client is killed with its pane (no SessionEnd): nothing waits any more, and the popup says so and stays.
    inner("kill-pane", "-t", claude)
    wait(lambda: inner("show-options", "-gqv", "@lunavect_awaiting") == "0", "@lunavect_awaiting = 0", timeout=60)
    outer("send-keys", "-t", view, "C-b", "N")
    wait(lambda: "nothing needs you" in outer.capture(view), "the popup's words", screen=lambda: outer.capture(view))
    outer("send-keys", "-t", view, "Escape")
    wait(lambda: "nothing needs you" not in outer.capture(view), "the popup closed by Esc")
