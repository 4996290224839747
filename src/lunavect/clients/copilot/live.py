"""GitHub Copilot CLI's live registry: which sessions are open now, whether each runs a turn, and its process.

Observed with Copilot CLI 1.0.102 (tests/clients/NOTES.md): `open-sessions-state.json` in its home is
`{"<session id>": {"schemaVersion": 1, "openedAt", "refreshedAt", "working": true|false}}` for every session
a process holds open. `working` turns true at a prompt, stays true while an approval or a form waits, and turns
false when the turn ends, however it ends: a reply (after its `agentStop` hook), an Esc, and a double Esc
while the model still answers, which takes the prompt back into the input row and rewrites the events file
without it (no hook and no record says so). `refreshedAt` is the moment of that change. An entry leaves at a
clean exit; a killed process's stays, frozen. The process holding a session leaves `inuse.<pid>.lock` in the
session's folder: the entry's process is the one whose executable is Copilot CLI's.

A turn's `working` is the catalog's `busy`, its end `idle` (`core.rules.catalog`): with hooks, an `idle` newer
than their last word ends a turn that no hook ended.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from lunavect.clients.copilot import layout
from lunavect.core import bounded_json
from lunavect.core.clients import COPILOT
from lunavect.core.ids import is_session_id
from lunavect.core.model import Evidence
from lunavect.core.times import epoch
from lunavect.files.tail import read_small
from lunavect.host.processes import Proc, process, terminal

REGISTRY = "open-sessions-state.json"
# A registry larger than this is no file Copilot CLI wrote.
MAX_REGISTRY_BYTES = 1 << 20
MAX_ENTRIES = 1000


class _Entry(msgspec.Struct):
    refreshedAt: object = None
    working: object = None


_registry = msgspec.json.Decoder(dict[str, msgspec.Raw])
_entry = msgspec.json.Decoder(_Entry)


@dataclass(frozen=True)
class OpenSession:
    session_id: str
    working: bool
    at: float


def registry_path() -> str:
    return str(layout.home() / REGISTRY)


def read_registry(path: str) -> list[OpenSession]:
    """The registry's entries; an unreadable file, or an entry of another shape, says nothing."""
    data = read_small(path, MAX_REGISTRY_BYTES)
    if data is None:
        return []
    try:
        entries = bounded_json.decode(_registry, data)
    except msgspec.DecodeError:
        return []
    found: list[OpenSession] = []
    for session_id, raw in list(entries.items())[:MAX_ENTRIES]:
        try:
            entry = bounded_json.decode(_entry, bytes(raw))
        except msgspec.DecodeError:
            continue
        at = epoch(entry.refreshedAt)
        if is_session_id(session_id) and isinstance(entry.working, bool) and at is not None:
            found.append(OpenSession(session_id, entry.working, at))
    return found


def holder(session_folder: str) -> Proc | None:
    """The live process of Copilot CLI that holds the session open (its lock file names it), or None."""
    for pid in layout.holders(session_folder):
        proc = process(pid)
        if proc is not None and not proc.zombie and proc.named(*COPILOT.process.names):
            return proc
    return None


def registry_evidence(entry: OpenSession, proc: Proc | None) -> tuple[str, Evidence]:
    """An entry as the catalog's status, its id naming the entry's moment (stable however often it is read)."""
    status = "busy" if entry.working else "idle"
    evidence = Evidence(
        provider=COPILOT.id,
        session_id=entry.session_id,
        kind="CatalogStatus",
        at=entry.at,
        source="catalog",
        status=status,
        pid=proc.pid if proc is not None else None,
        pstart=proc.started if proc is not None else None,
        tty=terminal(proc.pid) if proc is not None else None,
    )
    return f"copilot-open:{entry.session_id}:{entry.at!r}:{status}", evidence
