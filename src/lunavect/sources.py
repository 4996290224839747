"""What a source of evidence gives the collector, and how the collector stores it exactly once.

A source (a client's transcripts, its live catalog, Codex's rollouts or app-server) knows one client and
nothing of states or screens. Each poll returns evidence, each piece with an id that is the same every time
the same fact is read again (so re-reading never duplicates or re-times it), and a `commit` that saves the
source's own cursor inside the collector's transaction: a collector killed between the two stores neither.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from lunavect.core.model import Evidence

if TYPE_CHECKING:
    from lunavect.core.rules import Facts


def _nothing(conn: sqlite3.Connection) -> None:
    return None


@dataclass
class Batch:
    """Evidence from one poll, as (stable id, evidence) pairs, and how to save the source's cursor."""

    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    commit: Callable[[sqlite3.Connection], None] = _nothing
    # Sessions this source says must never be listed (internal agents, tool-launched runtimes).
    internal: set[str] = field(default_factory=set)


class Source(Protocol):
    """What the collector asks of every source. A source names this class as its base, so it inherits the
    defaults of what it does not offer (no writer proofs, nothing to close) and the collector calls each
    method without asking first whether the source has it."""

    name: str

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        """Read what changed since the last committed cursor. Must stay within its own time budget."""
        ...

    def writer_proofs(self, facts_by_key: Mapping[str, Facts], now: float) -> dict[str, bool | None]:
        """Per session key, Codex's "still writing this exact log" (the collector passes each to `decide` as
        `writer`); only the sessions that need one now."""
        return {}

    def close(self) -> None:
        """Called when the collector stops: a child process such as Codex's app-server ends with it."""
        return None
