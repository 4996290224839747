"""The live terminal title of a session whose client draws its state there, read from its pane on a real tmux
server found through the session's process: evidence at each change and again while it holds, for live sessions
of such clients only, and nothing outside tmux."""

from __future__ import annotations

import os
import time

import pytest
from tmux_server import tmux_server
from unit_support import wait_until

from lunavect.collector.pane_titles import CONFIRM_S, SETTLE_S, PaneTitles
from lunavect.core.model import State
from lunavect.core.rules import Facts


class Known:
    def __init__(self, facts: dict[str, Facts]) -> None:
        self._facts = facts

    def facts(self, provider: str):
        return {k: f for k, f in self._facts.items() if f.provider == provider}

    def live(self, key: str) -> bool:
        return self._facts[key].phase in (State.WORKING, State.PERMISSION, State.INPUT)

    def listing(self) -> bool:
        return False


def set_title(server, title: str) -> None:
    server("select-pane", "-t", "main", "-T", title)


@pytest.fixture
def pane(iso_env):
    with tmux_server(iso_env.env) as server:
        server("respawn-pane", "-k", "-t", "main", "sleep 60")
        pid = int(server("display-message", "-p", "-t", "main", "#{pane_pid}"))
        tty = server("display-message", "-p", "-t", "main", "#{pane_tty}")
        wait_until(lambda: os.path.exists(f"/proc/{pid}"), "the pane's process")
        yield server, pid, tty


def facts(provider: str, pid: int, tty: str, phase: State = State.PERMISSION) -> Facts:
    return Facts(provider, "s1", hooked=True, pid=pid, tty=tty, phase=phase, turn_open=True)


def poll(source: PaneTitles, now: float):
    return [(e.kind, e.source, e.status, e.at) for _id, e in source.poll(None, now).evidence]


@pytest.mark.process
def test_each_change_of_the_title_is_evidence_and_a_state_that_holds_is_said_again(pane) -> None:
    server, pid, tty = pane
    source = PaneTitles()
    source.attach(Known({"gemini:s1": facts("gemini", pid, tty)}))
    set_title(server, "✋  Action Required (work)")
    assert poll(source, 100.0) == [("PaneTitle", "title", "waiting", 100.0)]
    # Just changed, it is said again at each poll while it settles (the rules take it once past their margin).
    assert poll(source, 101.0) == [("PaneTitle", "title", "waiting", 101.0)]
    assert poll(source, 100.0 + SETTLE_S + 0.5) == []
    set_title(server, "✦  Working… (work)")
    assert poll(source, 110.0) == [("PaneTitle", "title", "busy", 110.0)]
    assert poll(source, 110.0 + SETTLE_S + 0.5) == []
    assert poll(source, 110.0 + CONFIRM_S) == [("PaneTitle", "title", "busy", 110.0 + CONFIRM_S)]


@pytest.mark.process
def test_only_live_sessions_of_clients_that_draw_their_state_are_read(pane) -> None:
    server, pid, tty = pane
    set_title(server, "✋  Action Required (work)")
    source = PaneTitles()
    source.attach(
        Known(
            {
                "claude:s1": facts("claude", pid, tty),  # draws no state in its title
                "gemini:s1": facts("gemini", pid, tty, State.READY),  # at rest: its next change comes by hook
            }
        )
    )
    assert poll(source, 100.0) == []


@pytest.mark.process
def test_a_title_that_is_not_the_clients_own_says_nothing(pane) -> None:
    server, pid, tty = pane
    set_title(server, "vim notes.txt")
    source = PaneTitles()
    source.attach(Known({"gemini:s1": facts("gemini", pid, tty)}))
    assert poll(source, 100.0) == []


@pytest.mark.process
def test_a_session_outside_tmux_is_not_read(iso_env) -> None:
    source = PaneTitles()
    me = os.getpid()
    source.attach(Known({"gemini:s1": facts("gemini", me, "/dev/pts/999")}))
    started = time.monotonic()
    assert poll(source, 100.0) == []
    assert time.monotonic() - started < 5
