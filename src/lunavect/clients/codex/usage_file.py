"""Reading a Codex rollout's usage forward, and what a read changes in the usage history.

The lifecycle cursor (cursor.py) searches a rollout backwards and stops at the newest boundary; usage needs
every `token_count`, each dated by its own time, so it is read forwards from where the last read stopped
(`RolloutUsage.read_to`), in blocks, whole lines only, by a reader apart from the cursor's own (its byte
figures stay the lifecycle's). A line still being written waits for its newline, as the cursor's do; but once
the file is quiet and its session is not open, a last line that is one whole record counts without one (a
finished rollout whose writer stopped before the newline), once: `read_to` then lies past it.

A sub-agent's rollout (review, a spawned agent) shows no row of its own, but its tokens were paid for: they
go to its parent's session as the sub-agents' part, with no latest state of their own (the parent's model and
context fill stay the parent's).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field

import msgspec

from lunavect.clients.codex.cursor_state import RolloutUsage
from lunavect.clients.codex.usage import UsageRead
from lunavect.files.tail import open_regular
from lunavect.usage import ledger
from lunavect.usage import limits as limit_store

BLOCK_BYTES = 1024 * 1024
# A last line longer than this (a compacted history) is no usage record: it is never read whole.
TAIL_BYTES = 1024 * 1024


def read_usage(
    path: str, usage: RolloutUsage | None, now: float, *, settled: bool, subagent: bool = False
) -> UsageRead | None:
    """Fold the usage records appended since `usage.read_to`; None when the file cannot be read. `settled`: the
    file is quiet and its session not open, so a whole last line without its newline counts."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        cut = usage is not None and usage.read_to > size
        read = UsageRead(None if cut else usage, now, subagent)
        read.restarted = cut  # what it held is counted again from its start
        start = offset = read.usage.read_to
        while offset < size:
            data = os.pread(fd, min(BLOCK_BYTES, size - offset), offset)
            if not data:
                break
            end = data.rfind(b"\n") + 1
            if end == 0:
                if offset + len(data) >= size:
                    break  # the last line, without its newline
                end = len(data)  # a line longer than a block: no usage record is that long
            else:
                read.lines(data[:end])
            offset += end
        if settled and 0 < size - offset <= TAIL_BYTES:
            tail = os.pread(fd, size - offset, offset)
            if b"\n" not in tail and read.line(tail):
                offset = size
    except OSError:
        return None
    finally:
        os.close(fd)
    read.usage = msgspec.structs.replace(read.usage, read_to=offset)
    read.changed = read.changed or offset != start
    return read


@dataclass
class UsageChange:
    """What reads of one rollout changed in the usage history, held until the collector commits."""

    restarted: bool = False
    deltas: ledger.Deltas = field(default_factory=ledger.Deltas)
    usage: RolloutUsage | None = None
    # A sub-agent's rollout: its tokens go to the parent (the key saved under), its latest state nowhere.
    subagent: bool = False

    def save(self, conn: sqlite3.Connection, path: str, key: str) -> None:
        if self.restarted:
            ledger.forget(conn, path)
        ledger.record(conn, path, key, self.deltas)
        usage = self.usage
        if usage is None:
            return
        if not self.subagent:
            at = usage.at if usage.at is not None else 0.0
            ledger.set_state(conn, path, key, usage.model, usage.context, usage.context_window, at)
        if usage.limits is not None:
            limit_store.record(conn, "codex", usage.limits)


def usage_change(restarted: bool, read: UsageRead | None, pending: UsageChange | None) -> UsageChange | None:
    """The history's change from one read, added to the one not yet committed. `restarted`: the file was read
    from its start (new, replaced or rewritten), and what its old content added is taken back first."""
    if not restarted and (read is None or not read.changed):
        return pending
    change = UsageChange(restarted=True) if restarted else pending or UsageChange()
    if read is not None:
        change.subagent = read.subagent
        for delta in read.deltas:
            change.deltas.add(delta.quarter, delta.model, delta.subagent, delta.tokens)
        change.usage = read.usage
    return change
