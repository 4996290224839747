"""The agent process of a Claude session, from its live catalog entry: for events that arrive without it.

A command hook's shim records the process that sent the event (pid, start time, terminal) from /proc. An
HTTP hook's request comes over loopback and names no process, so the collector's listener asks the live
catalog instead: it names each interactive session's process by session id, and an entry counts only while
that very process runs (catalog.is_live). A session without an entry (a headless `claude -p`) gets nothing
here; its command-hook events (a turn's start and end) still carry the shim's facts.
"""

from __future__ import annotations

from pathlib import Path

from lunavect.clients.claude.catalog import is_live, read_catalog
from lunavect.host.processes import process, terminal


def process_facts(session_id: str, config_dir: Path) -> dict | None:
    """`pid`, `pstart` and `tty` as the shim's spool line writes them, or None when no live entry names it."""
    entries, _unusable = read_catalog(config_dir)
    for entry in entries:
        if entry.session_id != session_id:
            continue
        proc = process(entry.pid)
        if proc is None or not is_live(entry, proc):
            continue
        facts: dict = {"pid": entry.pid}
        if proc.started is not None:
            facts["pstart"] = round(proc.started, 2)
        tty = terminal(entry.pid)
        if tty is not None:
            facts["tty"] = tty
        return facts
    return None
