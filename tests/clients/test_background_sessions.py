"""Claude Code's own background sessions (`claude --bg`), with the real pinned client: lunavect follows one
through working on Bash, a permission (`--permission-mode default`) and its ready reply, names it by its job
name (`--name`), and returns to it the way the client gives, `claude attach <job id>`: printed by `open`, run
by `open --resume-in tmux` in a new tmux window (where the person approves the permission), never the terminal
its process holds; a reply is refused with that command; after `claude stop` the row is no longer working and
its client no longer open, and `open --resume-in tmux` attaches again, which starts it again under the service.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest
from anthropic_server import AnthropicServer, has_tools, text, tool_use
from claude_tmux import ClientPaths, IsoHome
from open_support import Tmux

PROMPT = "please run the nightly report"
NAME = "nightly report"
PERMISSION_DIALOG = r"Do you want to proceed\?"


class Background:
    """The pinned `claude` on PATH, a private tmux server, and lunavect, all in the test's HOME."""

    def __init__(self, iso: IsoHome, clients: ClientPaths, url: str) -> None:
        self.iso = iso
        bin_dir = iso.root / "bin"
        bin_dir.mkdir()
        (bin_dir / "claude").symlink_to(clients.claude)
        iso.prepare_claude(cwds=[iso.work])
        self.env = iso.claude_env(url)
        self.env["PATH"] = f"{bin_dir}{os.pathsep}{self.env.get('PATH', '/usr/bin:/bin')}"
        self.tmux = Tmux(iso.root, self.env)
        self.home_pane = self.tmux.new_session("home", iso.work, "sh")

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        argv = [*args] if args[0] == "claude" else [sys.executable, "-m", "lunavect", *args]
        return subprocess.run(
            argv,
            env=env or self.env,
            cwd=str(self.iso.work),
            capture_output=True,
            text=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
        )

    def row(self, ready, what: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            proc = self.run("list", "--json", "--all")
            assert proc.returncode == 0, proc.stderr
            rows = json.loads(proc.stdout)
            if len(rows) == 1 and ready(rows[0]):
                return rows[0]
            assert time.monotonic() < deadline, f"never {what} in {timeout}s: {rows}"
            time.sleep(0.5)

    def inside_tmux(self) -> dict[str, str]:
        """The environment of a command run in the home pane's tmux session (as `lunavect open` would be)."""
        server_pid = self.tmux.pane_value(self.home_pane, "#{pid}")
        index = self.tmux.pane_value(self.home_pane, "#{session_id}").lstrip("$")
        return dict(self.env, TMUX=f"{self.tmux.socket},{server_pid},{index}")


@pytest.fixture
def background(iso_home: IsoHome, client_paths: ClientPaths, model_server: AnthropicServer):
    assert iso_home.lunavect_hooks_installed
    staged = Background(iso_home, client_paths, model_server.url)
    try:
        yield staged
    finally:
        staged.tmux.kill()


def test_a_background_session_is_followed_and_returned_to_through_claude_attach(
    background: Background, model_server: AnthropicServer
) -> None:
    model_server.script(
        tool_use("Bash", {"command": "python3 -c 'import time; time.sleep(15)'", "description": "gather"}),
        tool_use("Bash", {"command": "touch report.txt", "description": "write the report"}),
        text("The nightly report is written."),
        match=lambda r: has_tools(r) and PROMPT in r.user_text(),  # the prompt and each tool's result after it
    )
    started = background.run(
        "claude",
        "--bg",
        "--name",
        NAME,
        "--permission-mode",
        "default",
        "--allowedTools",
        "Bash(python3:*)",
        "--",
        PROMPT,
    )
    assert started.returncode == 0, started.stdout + started.stderr
    job = re.search(r"backgrounded · ([0-9a-f]+)", started.stdout)
    assert job, started.stdout
    job_id = job.group(1)
    attach = f"claude attach {job_id}"

    working = background.row(lambda r: r["state"] == "working" and r["activity"] == "Bash", "working on Bash")
    assert working["title"] == NAME and working["open"] is True
    row = background.row(lambda r: r["state"] == "permission", "asking permission")
    assert row["title"] == NAME and row["id"] == working["id"]

    # The way back is the client's attach command, whatever terminal launched it or the service holds.
    opened = background.run("open", row["id"], "--json")
    result = json.loads(opened.stdout)
    assert opened.returncode == 0 and (result["outcome"], result["command"]) == ("resume", attach), opened.stdout
    assert "cannot script" not in opened.stdout
    refused = background.run("reply", row["id"], "never typed")
    assert refused.returncode == 1 and "nothing was typed" in refused.stderr and attach in refused.stderr
    assert not any("never typed" in r.last_user_text() for r in model_server.requests)

    # `--resume-in tmux` runs it in a new window; the person approves the permission there.
    opened = background.run("open", row["id"], "--resume-in", "tmux", "--json", env=background.inside_tmux())
    result = json.loads(opened.stdout)
    assert opened.returncode == 0 and result["outcome"] == "resumed", opened.stdout + opened.stderr
    pane = result["target"]
    assert pane != background.home_pane
    tmux = background.tmux
    tmux.wait_screen(pane, PERMISSION_DIALOG, timeout=60)
    deadline = time.monotonic() + 30
    while re.search(PERMISSION_DIALOG, tmux.capture(pane)) and time.monotonic() < deadline:
        tmux("send-keys", "-t", pane, "Enter")  # keys just after the dialog draws are ignored (FACTS.md)
        time.sleep(1.5)
    ready = background.row(lambda r: r["state"] == "ready", "ready")
    assert ready["title"] == NAME and ready["open"] is True and ready["resume"] == attach
    assert (background.iso.work / "report.txt").exists()

    # Stopped: no longer working, its client no longer open; the same command brings it back.
    stopped = background.run("claude", "stop", job_id)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    ended = background.row(lambda r: r["open"] is False, "ended")
    assert ended["state"] != "working" and ended["title"] == NAME and ended["resume"] == attach
    opened = background.run("open", ended["id"])
    assert opened.returncode == 0 and "finished" in opened.stdout and f"resume it with: {attach}" in opened.stdout
    assert ended["state"] == "ready"  # what it last did; its client is no longer open

    # Attached again, the client starts it again under its service: the same session, open, its job the same.
    opened = background.run("open", ended["id"], "--resume-in", "tmux", "--json", env=background.inside_tmux())
    result = json.loads(opened.stdout)
    assert opened.returncode == 0 and (result["outcome"], result["command"]) == ("resumed", attach), opened.stdout
    tmux.wait_screen(result["target"], "The nightly report is written", timeout=60)  # the same conversation
    again = background.row(lambda r: r["open"] is True, "open again")
    assert again["id"] == ended["id"] and again["state"] != "working" and again["title"] == NAME
    opened = background.run("open", again["id"], "--json")
    assert json.loads(opened.stdout)["command"] == attach, opened.stdout
