"""Opening another host's session: the row's two booleans choose the ssh command (attach to its tmux pane
while it runs in one, open it there while it runs elsewhere, resume it there once ended), inside tmux in a
new window of the person's own tmux session (a real tmux server of the test's own), else printed; a host
name or id that could be read as an option or as shell is refused, and each word is quoted for both shells."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from sync_support import wait_until

from lunavect.core.resume_command import ssh_attach_command, ssh_command
from lunavect.navigation.open_result import Outcome
from lunavect.navigation.remote_host import open_remote


def test_inside_tmux_the_ssh_command_runs_in_a_new_window_that_stays_when_it_fails(tmp_path, monkeypatch):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    # A stand-in `ssh` first on PATH (tmux gives a window that a command client opened that client's
    # environment): it records its words, says why it failed and fails (no name is looked up).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "ssh-words"
    ssh = bin_dir / "ssh"
    ssh.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {record}\necho "ssh: no route to $2"\nexit 255\n')
    ssh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    env = dict(os.environ)
    sock = str(tmp_path / "tmux.sock")
    tmux = ["tmux", "-S", sock]
    subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-s", "person", "sleep 60"], check=True, env=env)
    try:
        pid = subprocess.run([*tmux, "display", "-p", "#{pid}"], capture_output=True, text=True).stdout.strip()
        session = subprocess.run([*tmux, "display", "-p", "#{session_id}"], capture_output=True, text=True)
        number = session.stdout.strip().lstrip("$")
        environ = {"TMUX": f"{sock},{pid},{number}"}
        result = open_remote("alpha", "claude:abc", environ, live=True, in_tmux=True)
        assert result.outcome == Outcome.RESUMED and result.command == "ssh -t alpha lunavect open claude:abc --attach"
        assert result.target and result.target.startswith("%")
        wait_until(lambda: "press Enter to close" in capture(tmux, result.target), what="the reason held on screen")
        screen = capture(tmux, result.target)
        assert "ssh: no route to alpha" in screen
        assert record.read_text().splitlines() == ["-t", "alpha", "lunavect", "open", "claude:abc", "--attach"]
        ended = open_remote("alpha", "claude:abc", environ, live=False)
        assert ended.command == "ssh alpha -t lunavect resume claude:abc"
        wait_until(lambda: "press Enter to close" in capture(tmux, ended.target), what="the second reason")
        windows = subprocess.run(
            [*tmux, "list-windows", "-t", "person", "-F", "#{pane_start_command}"], capture_output=True, text=True
        ).stdout.splitlines()
        assert len(windows) == 3
        # The window closes once the person has read it.
        subprocess.run([*tmux, "send-keys", "-t", result.target, "Enter"], check=True)
        wait_until(lambda: len(list_windows(tmux)) == 2, what="the window closed after Enter")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def capture(tmux: list[str], pane: str | None) -> str:
    assert pane is not None
    return subprocess.run([*tmux, "capture-pane", "-p", "-t", pane], capture_output=True, text=True).stdout


def list_windows(tmux: list[str]) -> list[str]:
    done = subprocess.run([*tmux, "list-windows", "-t", "person"], capture_output=True, text=True)
    return done.stdout.splitlines()


def test_outside_tmux_the_ssh_command_is_printed():
    result = open_remote("alpha", "claude:abc", {})
    assert result.ok and result.command == "ssh alpha -t lunavect open claude:abc"
    assert "open it there with: ssh alpha -t lunavect open claude:abc" in result.message
    pane = open_remote("alpha", "claude:abc", {}, in_tmux=True)
    assert pane.ok and "attach to that pane with: ssh -t alpha lunavect open claude:abc --attach" in pane.message
    # A row that says it is in a tmux pane but has ended is resumed, never attached to.
    ended = open_remote("alpha", "claude:abc", {}, live=False, in_tmux=True)
    assert ended.command == "ssh alpha -t lunavect resume claude:abc" and "it has ended on alpha" in ended.message


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("-oProxyCommand=touch x", "claude:abc"),
        ("alpha;id", "claude:abc"),
        ("alpha", "claude:abc;touch x"),
        ("alpha", "claude:$(touch x)"),
        ("alpha", "Claude:abc"),
        ("alpha", "claude:-abc"),
        ("", "claude:abc"),
    ],
)
def test_an_unsafe_host_or_id_is_refused_before_any_command_is_made(host, key):
    result = open_remote(host, key, {"TMUX": "/nonexistent,1,0"}, in_tmux=True, runner=pytest.fail)
    assert result.outcome == Outcome.UNAVAILABLE and result.command is None and not result.ok
    assert "cannot open it on another machine" in result.message


def test_each_word_is_quoted_for_the_remote_shell_and_again_for_this_one():
    # Never reached with a checked id; shown here so the quoting itself is proven.
    assert ssh_attach_command("alpha", "a b") == "ssh -t alpha lunavect open ''\"'\"'a b'\"'\"'' --attach"
    assert ssh_command("alpha", "resume", "x;y") == "ssh alpha -t lunavect resume ''\"'\"'x;y'\"'\"''"
