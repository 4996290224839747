"""The rows sync carries say whether each live session runs in a tmux pane here (`in_tmux`), from a real tmux
server of the test's own and the real process table: what another machine's `open` attaches to over ssh."""

from __future__ import annotations

import os

import msgspec
import pytest
from tmux_server import tmux_server
from unit_support import a_session

from lunavect.collector.tmux_rows import RECHECK_S, TmuxRows
from lunavect.core.model import Session
from lunavect.host.processes import LiveProcesses
from lunavect.navigation.terminals.runner import Reply, run

pytestmark = pytest.mark.process


def rows(*sessions: Session) -> dict[str, bytes]:
    return {s.id: msgspec.json.encode(s) for s in sessions}


def in_tmux(marked: dict[str, bytes]) -> dict[str, bool]:
    return {key: msgspec.json.decode(data, type=Session).in_tmux for key, data in marked.items()}


def test_a_live_session_in_a_pane_is_marked_and_others_are_left_as_they_were(iso_env, monkeypatch) -> None:
    calls: list[list[str]] = []

    def counted(argv: list[str]) -> Reply:
        calls.append(argv)
        return run(argv)

    now = [1000.0]
    with tmux_server(dict(os.environ)) as server:
        server("respawn-pane", "-k", "-t", "main", "exec sleep 300")
        # The server the lookups ask, whatever other servers this machine has (with none in tmux's default folder,
        # a terminal that was no pane was looked for again without a tmux call, and the count below stood still).
        monkeypatch.setenv("TMUX", server.tmux_variable)
        pid, tty = server("display-message", "-p", "-t", "main", "#{pane_pid} #{pane_tty}").split()
        in_pane = a_session("p1", pid=int(pid), tty=tty, open=True)
        ended = a_session("p2", pid=int(pid), tty=tty, open=False)
        elsewhere = a_session("p3", pid=os.getpid(), tty="/dev/pts/9999", open=True)
        given = rows(in_pane, ended, elsewhere)
        marker = TmuxRows(LiveProcesses, counted, lambda: now[0])
        marked = marker.mark(given)
        assert in_tmux(marked) == {"claude:p1": True, "claude:p2": False, "claude:p3": False}
        assert marked["claude:p2"] == given["claude:p2"] and marked["claude:p3"] == given["claude:p3"]
        # Once per process and terminal: neither place is looked for again at the next tick...
        before = len(calls)
        assert in_tmux(marker.mark(given))["claude:p1"] and len(calls) == before
        now[0] += RECHECK_S
        marker.mark(given)
        assert len(calls) > before  # ...until a terminal that was no pane is due to be looked at again
    # Its pane gone with its server, a new process on that terminal is looked up afresh.
    moved = a_session("p1", pid=int(pid), pstart=1.0, tty=tty, open=True)
    assert in_tmux(marker.mark(rows(moved))) == {"claude:p1": False}


def test_an_ended_sessions_row_is_handed_on_without_being_decoded(monkeypatch) -> None:
    """Sync hands every listed row to each publish, and a long history is nearly all ended sessions: only a row
    whose client runs is decoded (the snapshot's own encoding says `"open":true`)."""
    import lunavect.collector.tmux_rows as tmux_rows

    decoded: list[bytes] = []
    real = tmux_rows._decoder

    class Counting:
        def decode(self, data: bytes) -> Session:
            decoded.append(data)
            return real.decode(data)

    monkeypatch.setattr(tmux_rows, "_decoder", Counting())
    ended = [a_session(f"e{i}", pid=os.getpid(), tty="/dev/pts/9999", open=False) for i in range(50)]
    live = a_session("live", pid=os.getpid(), tty="/dev/pts/9999", open=True)
    given = rows(*ended, live)
    marked = TmuxRows(LiveProcesses, lambda argv: Reply(False, failure="missing"), lambda: 0.0).mark(given)
    assert marked == given
    assert decoded == [given["claude:live"]]
