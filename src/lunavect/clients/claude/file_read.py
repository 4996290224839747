"""What one read of one Claude Code transcript produced (`FileRead`): the shape that reading
(transcript_read.py) makes and the stored rows (transcript_rows.py) save, declared apart from both so that
neither needs the other to name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lunavect.clients.claude import agents
from lunavect.clients.claude.summary import TranscriptSummary
from lunavect.clients.claude.transcript import Cursor
from lunavect.core.model import Evidence
from lunavect.usage import ledger


@dataclass
class FileRead:
    """What one read of one transcript produced, held until the collector commits it."""

    path: str
    session_id: str
    cursor: Cursor
    summary: TranscriptSummary
    restarted: bool
    # This read found the file's first timed record: the moment to ask which process wrote it.
    first_timed: bool
    observations: list[agents.Observation] = field(default_factory=list)
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    bytes_read: int = 0
    # Lines skipped by this read (cut short, not JSON, too long): counted in the store for diagnostics.
    skipped: int = 0
    # The tokens this read added to the session's usage history.
    usage: ledger.Deltas = field(default_factory=ledger.Deltas)
