"""The terminal titles of live sessions whose client draws its state there (`Client.live_title`), as evidence.

Gemini CLI writes `✋` into its terminal's title while a confirmation waits, `✦`/`⏲` while it works and `◇`
once it is ready, at once, where its hooks say nothing (a permission granted, a question answered, a turn
cancelled). For each session of such a client that its hooks tied to a process and a terminal, and that its
facts call live, this finds the tmux pane on that terminal (its server from the process's parents, as returning
to a task finds it; the pane is remembered while the process lives) and reads `#{pane_title}`; the client's face
reads the state from it and the title's text goes no further. A change is evidence at once (its time the
moment it was seen); a state that holds is said again every CONFIRM_S, which keeps a long granted tool current.
Rules: `lunavect.core.rules.title`. Outside tmux nothing is read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from lunavect import clients
from lunavect.core import clients as descriptors
from lunavect.core.model import Evidence
from lunavect.evidence.sources import Batch, Known, NothingKnown, Source
from lunavect.host.processes import LiveProcesses, ProcessTable
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run

# A state that holds is said again this often.
CONFIRM_S = 30.0
# A title that has just changed is said again at each poll for this long: the rules take a title only once it is
# newer than the hooks' last word by their margin (`core.rules.title`), so a change seen within a moment of that
# word (a permission granted right after it was asked) moves the phase at the next poll, not CONFIRM_S later.
SETTLE_S = 3.0
# tmux answers in milliseconds; a server that hangs must not hold the collector's tick.
TMUX_TIMEOUT_S = 2.0
# How many characters of a title are looked at: its first sign is all that is read.
TITLE_CHARS = 200


@dataclass
class _Seen:
    pid: int
    tty: str
    pane: tmux.Pane | None
    status: str | None = None
    said_at: float | None = None
    changed_at: float | None = None


def _run(argv: list[str]) -> Reply:
    return run(argv, timeout=TMUX_TIMEOUT_S)


class PaneTitles(Source):
    """The live titles of the sessions of clients that draw their state in their terminal's title."""

    name = "pane-titles"

    def __init__(self, table: Callable[[], ProcessTable] = LiveProcesses, runner: Callable[[list[str]], Reply] = _run):
        self._table = table
        self._runner = runner
        self._known: Known = NothingKnown()
        self._seen: dict[str, _Seen] = {}

    def attach(self, known: Known) -> None:
        self._known = known

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        batch = Batch()
        wanted = {}
        for client in descriptors.every():
            if not client.rules.live_title:
                continue
            for key, facts in self._known.facts(client.id).items():
                if facts.hooked and facts.pid is not None and facts.tty and self._known.live(key):
                    wanted[key] = (client, facts)
        for key in list(self._seen):
            if key not in wanted:
                del self._seen[key]
        if not wanted:
            return batch
        table: ProcessTable | None = None
        titles: dict[str, dict[str, str]] = {}
        for key, (client, facts) in wanted.items():
            assert facts.pid is not None and facts.tty is not None
            seen = self._seen.get(key)
            if seen is None or (seen.pid, seen.tty) != (facts.pid, facts.tty):
                table = table or self._table()
                sockets = tmux.server_sockets(table, facts.pid) + tmux.default_sockets()
                pane = tmux.find_pane(sockets, facts.tty, runner=self._runner)
                seen = self._seen[key] = _Seen(facts.pid, facts.tty, pane)
            if seen.pane is None:
                continue
            if seen.pane.socket not in titles:
                titles[seen.pane.socket] = self._titles(seen.pane.socket)
            title = titles[seen.pane.socket].get(seen.pane.pane_id)
            status = clients.face(client).read_title(title[:TITLE_CHARS]) if title is not None else None
            if status is None:
                continue
            if status != seen.status:
                seen.status, seen.changed_at = status, now
            settling = seen.changed_at is not None and now - seen.changed_at <= SETTLE_S
            if settling or seen.said_at is None or now - seen.said_at >= CONFIRM_S:
                seen.said_at = now
                evidence = Evidence(client.id, facts.session_id, "PaneTitle", now, "title", status=status)
                batch.evidence.append((f"title:{key}:{status}:{now!r}", evidence))
        return batch

    def _titles(self, socket: str) -> dict[str, str]:
        """Every pane's title on one tmux server, by pane id."""
        reply = self._runner(tmux.argv(socket, "list-panes", "-a", "-F", "#{pane_id}\t#{pane_title}"))
        if not reply.ok:
            return {}
        found: dict[str, str] = {}
        for line in reply.stdout.splitlines():
            pane, _, title = line.partition("\t")
            if pane.startswith("%"):
                found[pane] = title
        return found
