"""A bounded first look at a transcript: its head and its tail, enough to list the session.

A person with a year of history has thousands of transcripts, some of many megabytes. Reading each whole
before listing it kept the list incomplete for minutes. The head holds what a session is (its folder, branch,
version, first prompt, often its generated title) and the tail how it ended (its last records, a later
title); reading only those lists every session in seconds. The whole read (background work, counts, a title
named in the middle) follows later, behind, and corrects what the glance could not see.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from lunavect.claude.records import RecordFacts, Unreadable, read_record
from lunavect.claude.summary import TranscriptSummary, take
from lunavect.tail import open_regular

HEAD_BYTES = 32 << 10
TAIL_BYTES = 64 << 10
# A file no larger than this is simply read whole: a glance would read most of it anyway.
WHOLE_BYTES = 2 * (HEAD_BYTES + TAIL_BYTES)


@dataclass
class Glance:
    summary: TranscriptSummary
    # The tail's records, in file order (what the session did last).
    tail: list[RecordFacts] = field(default_factory=list)
    bytes_read: int = 0


def _lines(data: bytes, offset: int) -> list[tuple[int, bytes]]:
    """The complete lines of `data` read at `offset`: a first line cut by the offset and a last line without
    its newline (still being written) are left out."""
    start = 0
    if offset > 0:
        start = data.find(b"\n") + 1
        if start == 0:
            return []
    found = []
    while (newline := data.find(b"\n", start)) >= 0:
        found.append((offset + start, data[start:newline]))
        start = newline + 1
    return found


def _facts(lines: list[tuple[int, bytes]]) -> list[RecordFacts]:
    found = []
    for place, line in lines:
        try:
            facts = read_record(line, place)
        except Unreadable:
            continue
        if facts is not None:
            found.append(facts)
    return found


def glance(path: str, session_id: str) -> Glance:
    """The summary a head and a tail read give, and the tail's records; OSError when the file is unreadable."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, HEAD_BYTES, 0)
        tail_at = max(len(head), size - TAIL_BYTES)
        tail = os.pread(fd, size - tail_at, tail_at) if size > tail_at else b""
    finally:
        os.close(fd)
    summary = TranscriptSummary(session_id=session_id)
    seen = Glance(summary, bytes_read=len(head) + len(tail))
    for facts in _facts(_lines(head, 0)):
        take(summary, facts)
    seen.tail = _facts(_lines(tail, tail_at))
    for facts in seen.tail:
        take(summary, facts)
    return seen
