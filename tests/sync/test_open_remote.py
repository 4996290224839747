"""Opening another host's session inside tmux runs `ssh HOST -t lunavect open ID` in a new window of the
person's own tmux session (a real tmux server of the test's own)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from lunavect.navigation.open_result import Outcome
from lunavect.navigation.remote_host import open_remote


def test_inside_tmux_the_ssh_command_runs_in_a_new_window(tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    sock = str(tmp_path / "tmux.sock")
    tmux = ["tmux", "-S", sock]
    subprocess.run([*tmux, "new-session", "-d", "-s", "person", "sleep 60"], check=True)
    try:
        subprocess.run([*tmux, "set-option", "-g", "remain-on-exit", "on"], check=True)
        pid = subprocess.run([*tmux, "display", "-p", "#{pid}"], capture_output=True, text=True).stdout.strip()
        session = subprocess.run([*tmux, "display", "-p", "#{session_id}"], capture_output=True, text=True)
        number = session.stdout.strip().lstrip("$")
        result = open_remote("alpha", "claude:abc", {"TMUX": f"{sock},{pid},{number}"})
        assert result.outcome == Outcome.RESUMED and result.command == "ssh alpha -t lunavect open claude:abc"
        windows = subprocess.run(
            [*tmux, "list-windows", "-t", "person", "-F", "#{pane_start_command}"], capture_output=True, text=True
        ).stdout.splitlines()
        assert len(windows) == 2 and "ssh alpha -t lunavect open claude:abc" in windows[1]
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_outside_tmux_the_ssh_command_is_printed():
    result = open_remote("alpha", "claude:abc", {})
    assert result.ok and result.command == "ssh alpha -t lunavect open claude:abc"
    assert "open it there with: ssh alpha -t lunavect open claude:abc" in result.message
