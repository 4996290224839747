"""Folding one read's transcript lines into what the read keeps: the summary, the latest activity, the
background-work observations and the usage this read added.

This loop runs once for every line of every transcript a person ever wrote (a whole read of a year of history
is gigabytes), so it is written for throughput: most lines (progress, snapshots, request blobs) are dropped by
the byte test alone, without a Python call per line beyond it; the rest are read in one pass over their bytes
(records.py). What it produces is exactly what reading each line on its own and folding its facts gives
(tests/unit/claude/test_claude_fold.py holds the two side by side).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from lunavect.clients.claude import agents
from lunavect.clients.claude.fast_records import CommonRecords
from lunavect.clients.claude.latest import Latest
from lunavect.clients.claude.record_shapes import names_work, typed_record_decoder
from lunavect.clients.claude.records import Unreadable, facts_of, might_matter_pattern, might_matter_search, read_plain
from lunavect.clients.claude.summary import TranscriptSummary, take, take_usage
from lunavect.clients.claude.transcript import AppendedLines
from lunavect.usage import ledger


@dataclass
class Folded:
    """What the lines of one read added beside the summary and the latest activity."""

    observations: list[agents.Observation] = field(default_factory=list)
    usage: ledger.Deltas = field(default_factory=ledger.Deltas)
    # Lines skipped (cut short, not JSON, too long): counted in the store for diagnostics.
    skipped: int = 0


def fold_lines(
    lines: Iterable[tuple[int, bytes | None]], summary: TranscriptSummary, latest: Latest, now: float
) -> Folded:
    """Fold `(offset, line)` pairs, in file order (None for a line too long to keep), into `summary` and
    `latest`; returns the observations, usage and skipped lines they added."""
    folded = Folded()
    observations, usage = folded.observations, folded.usage
    decode = typed_record_decoder.decode
    common = CommonRecords(summary, latest, usage, now)
    if isinstance(lines, AppendedLines):
        batches: Iterable[Iterable[tuple[int, bytes | None]]] = lines.matching(might_matter_pattern)
    else:
        batches = [[(offset, line) for offset, line in lines if line is None or might_matter_search(line)]]
    for offset, line in itertools.chain.from_iterable(batches):
        if line is None:
            summary.too_long += 1
            folded.skipped += 1
            continue
        try:
            try:
                record = decode(line)
            except RecursionError:
                raise Unreadable from None  # nested deeper than the stack allows (core/bounded_json.py)
            except msgspec.DecodeError:
                record = None  # another shape: read field by field
            if record is not None and (record.toolUseResult is None or not names_work(record.toolUseResult)):
                if common.fold(record, offset):
                    continue
                facts = facts_of(record, offset)
            else:
                facts = read_plain(line, offset)
        except Unreadable:
            summary.unreadable += 1
            folded.skipped += 1
            continue
        if facts is None:
            continue
        take(summary, facts)
        common.taken_elsewhere()  # the summary's metadata may have moved: the next common record sets its own
        if facts.usage is not None or facts.compaction is not None:
            added = take_usage(summary, facts)
            if added is not None:
                assert facts.usage is not None
                usage.add(ledger.quarter_of(facts.at, now), facts.usage.model, facts.usage.subagent, added)
        if facts.observations:
            observations.extend(facts.observations)
        if facts.activity:
            latest.add(facts)
    return folded
