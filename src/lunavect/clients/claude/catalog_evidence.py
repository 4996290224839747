"""A Claude Code catalog entry (`sessions/<pid>.json`) of a live process, as evidence for the collector."""

from __future__ import annotations

from lunavect.clients.claude.catalog import CatalogEntry
from lunavect.core.model import Evidence
from lunavect.host.processes import Proc, terminal

PROVIDER = "claude"


def catalog_evidence(entry: CatalogEntry, proc: Proc) -> tuple[str, Evidence]:
    """A live catalog entry's status as evidence, its id naming the entry's process and moment (stable)."""
    assert entry.at is not None and entry.status is not None
    event_id = f"catalog:{entry.session_id}:{entry.pid}:{entry.at!r}:{entry.status}:{entry.waiting_for or ''}"
    return event_id, Evidence(
        provider=PROVIDER,
        session_id=entry.session_id,
        kind="CatalogStatus",
        at=entry.at,
        source="catalog",
        status=entry.status,
        waiting_for=entry.waiting_for,
        pid=entry.pid,
        pstart=proc.started,
        tty=terminal(entry.pid),
        cwd=entry.cwd,
        title=entry.name,
        version=entry.version,
        entrypoint=entry.entrypoint,
        tmux=entry.tmux,
        job=entry.job_id,
    )
