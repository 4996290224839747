"""`lunavect open ID --attach` on the machine where the session runs: each refusal has its reason (invented
process tables), a finished session is resumed in this terminal, and a session live in a real tmux pane
becomes a grouped tmux session whose client shows exactly that pane, while the clients already on the pane's
session keep the window they show."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from process_tables import FakeTable
from tmux_server import tmux_server
from unit_support import a_session, seed_snapshot, wait_until

from lunavect.host.processes import LiveProcesses, Proc
from lunavect.navigation import attach_here, remote_host
from lunavect.navigation.open_result import Outcome

pytestmark = pytest.mark.process


SHELL = Proc(200, 1, "bash", "bash", "/dev/pts/93", 1100.0)
CLAUDE = Proc(300, 200, "claude", "claude", "/dev/pts/93", 1200.0)


def terminal(_fd: int) -> bool:
    return True


def not_terminal(_fd: int) -> bool:
    return False


def refused(result: object, outcome: Outcome, words: str) -> None:
    assert not isinstance(result, attach_here.Takeover), result
    assert result.outcome == outcome and words in result.message, result.message
    assert not result.ok


def test_a_session_on_a_terminal_no_tmux_pane_holds_is_refused() -> None:
    session = a_session("s1", pid=300, pstart=1200.0, tty="/dev/pts/93")
    result = attach_here.plan(session, FakeTable(SHELL, CLAUDE), {}, isatty=terminal)
    refused(result, Outcome.UNSUPPORTED, "it runs on /dev/pts/93, which is no live tmux pane of this user's")


def test_a_session_in_an_app_is_refused() -> None:
    session = a_session("s1", pid=300, pstart=1200.0, tty=None, client="desktop")
    refused(attach_here.plan(session, FakeTable(CLAUDE), {}, isatty=terminal), Outcome.UNSUPPORTED, "in no tmux pane")


def test_one_of_several_sessions_in_a_folder_is_refused_with_the_candidates(tmp_path: Path) -> None:
    folder = str(tmp_path)
    other = Proc(301, 200, "claude", "claude", "/dev/pts/94", 1300.0)
    session = a_session("s1", cwd=folder)
    result = attach_here.plan(session, FakeTable(CLAUDE, other, cwds={300: folder, 301: folder}), {}, isatty=terminal)
    refused(result, Outcome.AMBIGUOUS, "cannot tell which terminal")
    assert not isinstance(result, attach_here.Takeover) and len(result.candidates) == 2


def test_without_a_terminal_nothing_is_attached() -> None:
    session = a_session("s1", pid=300, pstart=1200.0, tty="/dev/pts/93")
    refused(attach_here.plan(session, FakeTable(CLAUDE), {}, isatty=not_terminal), Outcome.UNSUPPORTED, "ssh -t")


def test_another_machines_session_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote_host, "sync_host", lambda: "here")
    session = a_session("s1", host="there", pid=300, tty="/dev/pts/93")
    result = attach_here.plan(session, FakeTable(CLAUDE), {}, isatty=terminal)
    refused(result, Outcome.UNSUPPORTED, "it runs on there; --attach opens a session of this machine only")


def test_a_finished_session_is_resumed_in_this_terminal(tmp_path: Path, iso_env, monkeypatch) -> None:
    claude = iso_env.program_on_path("claude", "exit 0")
    monkeypatch.setenv("PATH", iso_env.env["PATH"])
    session = a_session("s1", cwd=str(tmp_path), pid=999_999, pstart=5.0)
    # Inside tmux too: a resumed client nests nothing.
    result = attach_here.plan(session, FakeTable(), {"TMUX": "/tmp/x,1,0"}, isatty=terminal)
    assert isinstance(result, attach_here.Takeover), result
    assert (result.argv, result.cwd) == ([str(claude), "--resume", "s1"], str(tmp_path))
    gone = a_session("s2", cwd=str(tmp_path / "deleted"), pid=999_999, pstart=5.0)
    refused(attach_here.plan(gone, FakeTable(), {}, isatty=terminal), Outcome.UNAVAILABLE, "no longer exists")


def test_the_cli_refuses_with_the_reason_and_the_exit_code(iso_env) -> None:
    seed_snapshot(iso_env.connect(), a_session("abc1", pid=999_999, pstart=5.0, cwd="/nonexistent-lv"))
    done = iso_env.cli("open", "abc1", "--attach")
    assert done.returncode == 1 and "cannot attach: this command does not run in a terminal" in done.stderr, done
    both = iso_env.cli("open", "abc1", "--attach", "--resume-in", "tmux")
    assert both.returncode == 2 and "without --resume-in" in both.stderr


def _pane(server, target: str) -> tuple[str, int, str]:
    pane_id, pid, tty = server("display-message", "-p", "-t", target, "#{pane_id} #{pane_pid} #{pane_tty}").split()
    return pane_id, int(pid), tty


def test_a_live_pane_is_shown_in_a_grouped_session_and_the_others_keep_their_window(iso_env) -> None:
    env = dict(os.environ)
    with tmux_server(env) as there, tmux_server(env) as here:
        there("respawn-pane", "-k", "-t", "main", "echo FIRST-WINDOW; exec sleep 300")
        there("new-window", "-t", "main", "echo LEFT-PANE; exec sleep 300")
        there("split-window", "-t", "main:1", "echo THE-AGENT-PANE; exec sleep 300")
        pane_id, pid, tty = _pane(there, "main:1.1")
        there("split-window", "-t", "main:1", "echo LOWER-PANE; exec sleep 300")
        there("select-window", "-t", "main:0")
        session = a_session("s1", pid=pid, tty=tty)
        inside = attach_here.plan(session, LiveProcesses(), {"TMUX": here.tmux_variable}, isatty=terminal)
        refused(inside, Outcome.UNSUPPORTED, "inside tmux already; `lunavect open claude:s1` shows it here")
        result = attach_here.plan(session, LiveProcesses(), {"TMUX_TMPDIR": "/nonexistent"}, isatty=terminal)
        # The pane's server is found from the agent's own parents: a server of this user's only.
        assert isinstance(result, attach_here.Takeover), result
        assert result.argv[:3] == ["tmux", "-S", there.socket] and pane_id in result.argv
        here("respawn-pane", "-k", "-t", "main", result.display)
        wait_until(lambda: "THE-AGENT-PANE" in here("capture-pane", "-p", "-t", "main"), what="the pane shown")
        screen = here("capture-pane", "-p", "-t", "main")
        assert "LEFT-PANE" in screen and "FIRST-WINDOW" not in screen
        shown = there("list-clients", "-F", "#{client_session} #{window_id} #{pane_id}").split()
        assert shown[1:] == [there("display-message", "-p", "-t", pane_id, "#{window_id}"), pane_id]
        # The pane's own session still shows its first window to whoever is attached to it.
        assert there("display-message", "-p", "-t", "main", "#{window_index}") == "0"
        assert shown[0] != "main"
        here("kill-server")
        # The grouped session ends with its client: nothing is left behind on the pane's server.
        wait_until(lambda: there("list-sessions", "-F", "#{session_name}").split() == ["main"], what="cleaned up")
        assert subprocess.run(
            ["tmux", "-S", there.socket, "has-session", "-t", shown[0]], capture_output=True
        ).returncode
