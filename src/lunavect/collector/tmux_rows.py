"""Which of this machine's live sessions run in a tmux pane, said in the rows sync carries (`Session.in_tmux`),
so that another machine's `open` attaches to that pane over ssh rather than resuming a session that runs.

Only the rows sync publishes are marked, just before they are handed over: without sync nothing here runs. A
live row's process and terminal device (its `pid`, `pstart` and `tty`, this machine's own facts) are looked up
on this user's tmux servers as returning to a task does (`tmux.server_sockets`, `default_sockets`,
`find_pane`), once per process and device: a pane found stays that process's while it lives, and a terminal
that was no pane is looked at again every RECHECK_S (a tmux that did not answer in time counts as no pane).
The boolean is a hint for the other machine's choice of command; `open --attach` proves the pane again there.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import msgspec

from lunavect.core.model import Session
from lunavect.host.processes import LiveProcesses, ProcessTable
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run

# A terminal found in no tmux pane is looked at again this often.
RECHECK_S = 30.0
# tmux answers in milliseconds; a server that hangs must not hold the collector's tick.
TMUX_TIMEOUT_S = 2.0

_decoder = msgspec.json.Decoder(Session)
# How the snapshot (written by msgspec, compact) says a row's client still runs: a row without it is not decoded.
_OPEN = b'"open":true'
_encoder = msgspec.json.Encoder()

Place = tuple[int, float | None, str]


def _run(argv: list[str]) -> Reply:
    return run(argv, timeout=TMUX_TIMEOUT_S)


class TmuxRows:
    def __init__(
        self,
        table: Callable[[], ProcessTable] = LiveProcesses,
        runner: Callable[[list[str]], Reply] = _run,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._table = table
        self._runner = runner
        self._clock = clock
        self._seen: dict[Place, tuple[bool, float]] = {}

    def mark(self, rows: dict[str, bytes]) -> dict[str, bytes]:
        """The rows, each live one in a tmux pane here with `in_tmux` set (the others as they were)."""
        now = self._clock()
        table: ProcessTable | None = None
        places: set[Place] = set()
        marked: dict[str, bytes] = {}
        for key, data in rows.items():
            marked[key] = data
            if _OPEN not in data:
                continue  # an ended session (nearly every row of a long history): not decoded at each publish
            try:
                session = _decoder.decode(data)
            except msgspec.DecodeError:
                continue
            if not session.open or session.pid is None or not session.tty:
                continue
            place = (session.pid, session.pstart, session.tty)
            places.add(place)
            known = self._seen.get(place)
            if known is None or (not known[0] and now - known[1] >= RECHECK_S):
                table = table or self._table()
                sockets = tmux.server_sockets(table, session.pid) + tmux.default_sockets()
                known = self._seen[place] = (tmux.find_pane(sockets, session.tty, runner=self._runner) is not None, now)
            if known[0] and not session.in_tmux:
                session.in_tmux = True
                marked[key] = _encoder.encode(session)
        for place in [place for place in self._seen if place not in places]:
            del self._seen[place]
        return marked
