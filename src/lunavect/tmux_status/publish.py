"""The collector's tmux publisher: user options on every tmux server of this user, written only on change.

It runs in a thread of the collector and wakes only when the collector tells its change feed's subscribers
that something front ends show changed: it reads the summary on its own connection, and for each tmux server
sets the options whose value differs from what it last set there, then refreshes that server's clients' status
lines. Nothing changes, nothing runs: no tmux process per refresh and no timer. It is on only while the
person's tmux.conf block asked for it (`lunavect tmux install` sets the store's `tmux_publish`), and a server
that is not running costs one failed `connect`. A server started later gets everything at its first change,
and at once from the block's own `run-shell 'lunavect tmux publish'`.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable

import msgspec

from lunavect import faults, store
from lunavect.core import tmux_text
from lunavect.core.model import Session
from lunavect.host.processes import LiveProcesses, ProcessTable
from lunavect.listing.attention import summarize
from lunavect.listing.sessions import read_sessions
from lunavect.navigation.locate import Status
from lunavect.navigation.navigate import whereabouts
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run
from lunavect.tmux_status.options import global_values, pane_states

log = logging.getLogger(__name__)

SETTING = "tmux_publish"
LOOP_NAME = "tmux publisher"
PANE_OPTION = "@lunavect_state"
_PANES = "#{pane_id}\t#{pane_tty}\t#{pane_dead}\t#{@lunavect_state}"

Runner = Callable[[list[str]], Reply]


def enabled(conn: sqlite3.Connection) -> bool:
    return store.get_setting(conn, SETTING) == "1"


def placed(sessions: list[Session], table: ProcessTable | None = None) -> list[Session]:
    """The sessions with their terminal: the device their hooks recorded, or, for an open session of this
    machine whose hooks recorded none (Codex's), the one `lunavect open` finds (its process's parents, or the
    one process of its client in its folder), so its pane is marked too. The process table is read only when
    some open session lacks its device."""
    unplaced = [s for s in sessions if s.open and not s.tty and s.heard is None]
    if not unplaced:
        return sessions
    table = table or LiveProcesses()
    found: dict[str, Session] = {}
    for session in unplaced:
        where = whereabouts(session, table, sessions)
        if where.status == Status.LIVE and where.tty and where.pid is not None:
            found[session.id] = msgspec.structs.replace(session, tty=where.tty, pid=where.pid)
    return [found.get(s.id, s) for s in sessions]


class Servers:
    """What was last set on each server, so that a change sets only what changed and an unchanged store sets
    nothing."""

    def __init__(self, runner: Runner = run, sockets: Callable[[], list[str]] = tmux.default_sockets) -> None:
        self.runner = runner
        self.sockets = sockets
        self._published: dict[str, dict[str, str]] = {}

    def publish(self, conn: sqlite3.Connection, force: bool = False) -> int:
        """Bring every running server up to date; returns how many servers changed."""
        sessions = read_sessions(conn, include_hidden=True)
        values = global_values(summarize(conn))
        states = pane_states(placed(sessions))
        changed = 0
        live = set()
        for socket in self.sockets():
            live.add(socket)
            if self._publish_server(socket, values, states, force):
                changed += 1
        for gone in set(self._published) - live:
            del self._published[gone]
        return changed

    def _publish_server(self, socket: str, values: dict[str, str], states: dict[str, str], force: bool) -> bool:
        last = {} if force else self._published.get(socket, {})
        commands: list[str] = []
        for name, value in values.items():
            if last.get(name) != value:
                commands += ["set-option", "-g", name, tmux_text.argument(value), ";"]
        listing = self.runner(tmux.argv(socket, "list-panes", "-a", "-F", _PANES))
        if not listing.ok:
            self._published.pop(socket, None)  # not running (a stale socket): start afresh if it comes back
            return False
        for line in listing.stdout.splitlines():
            parts = line.split("\t")
            if len(parts) != 4:
                continue
            pane_id, device, dead, shown = parts
            # A pane border draws the value: it is set (and so read back) with every `#` doubled.
            state = tmux_text.drawn(states.get(device, "")) if dead != "1" else ""
            if state != shown:
                commands += ["set-option", "-p", "-t", pane_id, PANE_OPTION, tmux_text.argument(state), ";"] if state else [
                    "set-option", "-pu", "-t", pane_id, PANE_OPTION, ";",
                ]  # fmt: skip
        if not commands:
            return False
        reply = self.runner(tmux.argv(socket, *commands[:-1]))
        if not reply.ok:
            log.info("tmux %s: %s", socket, reply.error_line)
            return False
        self._published[socket] = dict(values)
        self._refresh_clients(socket)
        return True

    def _refresh_clients(self, socket: str) -> None:
        clients = self.runner(tmux.argv(socket, "list-clients", "-F", "#{client_name}"))
        names = clients.stdout.split() if clients.ok else []
        commands: list[str] = []
        for name in names:
            commands += ["refresh-client", "-S", "-t", name, ";"]
        if commands:
            self.runner(tmux.argv(socket, *commands[:-1]))


class Publishing:
    """The thread: `notify()` after each change the collector announces (it calls `after`, the change feed's
    own publish, then wakes the thread); never blocks the collector. It publishes once at its start, and ends
    with the collector's process (a daemon thread: it holds nothing that needs closing). A publish that fails is
    noted by `faults.Loop` (logged, counted, shown by `lunavect doctor`), and the next change is published."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        after: Callable[[], None] = lambda: None,
        servers: Servers | None = None,
    ) -> None:
        self._connect = connect
        self._after = after
        self.servers = servers or Servers()
        self.guard = faults.Loop(LOOP_NAME, log, connect)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lunavect-tmux", daemon=True)
        self._thread.start()
        self._wake.set()

    def notify(self) -> None:
        self._after()
        self._wake.set()

    def _run(self) -> None:
        """Publish after each wake. A step that fails (the store, tmux, a bug a session's data triggers) is noted
        by the loop's guard and the next change is published as usual: the thread never ends before `close`."""
        conn: sqlite3.Connection | None = None

        def step() -> None:
            nonlocal conn
            if conn is None:
                conn = self._connect()
            if enabled(conn):
                self.servers.publish(conn)

        try:
            while True:
                self._wake.wait()
                if self._stop.is_set():
                    return
                self._wake.clear()
                if not self.guard.step(step) and conn is not None:
                    conn.close()  # the connection may be what failed: the next step opens a new one
                    conn = None
        finally:
            if conn is not None:
                conn.close()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)
