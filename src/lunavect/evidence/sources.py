"""What a source of evidence gives the collector, and how the collector stores it exactly once.

A source (a client's transcripts, its live catalog, Codex's rollouts or app-server) knows one client and
nothing of states or screens, and writes nothing but its own cursor: the collector alone commits. What it
needs of what the collector knows (each session's facts, which sessions are live) it reads through `Known`, a
read-only view the collector attaches. Each poll returns evidence, each piece with an id that is the same every time
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
    # A complete catalog listing, (provider, keys of every session it listed): the collector records it in the
    # arrangement (a hidden session leaves the hidden list once its catalog stops listing it).
    complete_listing: tuple[str, list[str]] | None = None
    # Work the source left for its next polls: "listing" (sessions not listed yet: poll again at once) or
    # "reading" (whole reads behind a complete list: poll again within the collector's CPU budget).
    backlog: str | None = None
    # While it has a backlog: how many of the sessions it knows it has read, and how many it knows (the
    # collector says the sum as `reading history: 412 of 3,000`, for doctor and the panel's header).
    progress: tuple[int, int] | None = None


class Known(Protocol):
    """What the collector knows, read-only: a source never reads the store's facts behind its back."""

    def facts(self, provider: str) -> Mapping[str, Facts]:
        """Each session's folded facts, by key, for one provider."""
        ...

    def changed(self, provider: str) -> set[str]:
        """The keys of this provider's sessions whose facts changed since the last call (every one at the first):
        what a source follows incrementally, instead of walking every session at each poll."""
        ...

    def live(self, key: str) -> bool:
        """True for a session whose facts say it runs now (the rules' judgement, not the source's)."""
        ...

    def urgent(self) -> bool:
        """True when a hook event waits in the spool: a long read (a first start's glances and whole reads)
        stops before its next file and leaves the rest for its next poll, so the event shows at once."""
        ...

    def listing(self) -> bool:
        """True while some source still has sessions to list (its last `Batch.backlog` said "listing"): a
        source's whole reads wait for every source's list, not only its own."""
        ...


class NothingKnown:
    """The view of a source no collector has attached."""

    def facts(self, provider: str) -> Mapping[str, Facts]:
        return {}

    def changed(self, provider: str) -> set[str]:
        return set()

    def live(self, key: str) -> bool:
        return False

    def urgent(self) -> bool:
        return False

    def listing(self) -> bool:
        return False


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

    def attach(self, known: Known) -> None:
        """Called once, before the first poll, with the collector's read-only view of what it knows."""
        return None

    def wake_with(self, wake: Callable[[], None]) -> None:
        """Called once by the running collector with what wakes it: a source that watches its files calls
        `wake` (from any thread) when they change, so a collector at rest need not poll it on a timer."""
        return None

    def close(self) -> None:
        """Called when the collector stops: a child process such as Codex's app-server ends with it."""
        return None


class LiveEntry(Protocol):
    """One entry of a client's live catalog (Claude Code's `sessions/<pid>.json`): which session a running process
    holds now, as returning to a task needs it (`lunavect.clients.claude.catalog.CatalogEntry` has it all)."""

    @property
    def pid(self) -> int: ...
    @property
    def session_id(self) -> str: ...
    @property
    def started(self) -> float | None: ...
    @property
    def tmux_pane(self) -> str | None: ...
    @property
    def entrypoint(self) -> str | None: ...


class BackgroundJob(Protocol):
    """A session its client runs under a service of its own, apart from any terminal (Claude Code's background
    sessions, `claude --bg`): no pane or tab is its own, and its job id, after the client's `attach` arguments
    (`Client.attach`), brings it into one (`lunavect.clients.claude.jobs.Job` has it all)."""

    @property
    def job_id(self) -> str: ...
    @property
    def live(self) -> bool: ...
    @property
    def name(self) -> str | None: ...
