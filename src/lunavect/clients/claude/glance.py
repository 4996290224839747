"""A bounded first look at a transcript: its head and its tail, enough to list the session.

A person with a year of history has thousands of transcripts, some of many megabytes. Reading each whole
before listing it kept the list incomplete for minutes. The head holds what a session is (its folder, branch,
version, first prompt, often its generated title) and the tail how it ended (its last records, a later
title); reading only those lists every session in seconds. The whole read (background work, counts, a title
named in the middle) follows later, behind, and corrects what the glance could not see.

Decoding records is what a first look costs (tens of microseconds each), so a glance decodes only what it
uses: the head until it knows the session's start, folder and first prompt, the tail backwards until its
last prompt (what came before is superseded, `latest.py`), and elsewhere only the lines that name a title.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from lunavect.clients.claude.record_facts import RecordFacts
from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.clients.claude.summary import TranscriptSummary, take
from lunavect.files.tail import open_regular

HEAD_BYTES = 32 << 10
TAIL_BYTES = 64 << 10
# A file no larger than this is simply read whole once its glance listed it (the same poll, unless other
# sessions are still unlisted): a glance reads most of it anyway.
WHOLE_BYTES = 2 * (HEAD_BYTES + TAIL_BYTES)
# A file no larger than a glance reads is read whole instead of glanced at, however old: the whole read's fast
# fold (fold.py) costs about what a glance's decoding of the same records costs, and the glance came on top of it.
GLANCED_BYTES = HEAD_BYTES + TAIL_BYTES
# The records that name a session (summary.py's title order), found by bytes wherever a glance reads.
_TITLES = re.compile(rb'"(?:custom-title|ai-title|agent-name|summary|last-prompt)"')


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


class _Records:
    """Each line's record decoded once, though a small file's head and tail overlap."""

    def __init__(self) -> None:
        self._found: dict[int, RecordFacts | None] = {}

    def read(self, place: int, line: bytes) -> RecordFacts | None:
        if place not in self._found:
            try:
                self._found[place] = read_record(line, place)
            except Unreadable:
                self._found[place] = None
        return self._found[place]


def _head(lines: list[tuple[int, bytes]], summary: TranscriptSummary, records: _Records) -> None:
    """Take the head's records until the session's start, folder and first prompt are known, then only
    its titles."""
    for place, line in lines:
        known = summary.first_at is not None and summary.cwd is not None and summary.first_prompt is not None
        if known and _TITLES.search(line) is None:
            continue
        facts = records.read(place, line)
        if facts is not None:
            take(summary, facts)


def _is_prompt(facts: RecordFacts) -> bool:
    return any(a.kind == "TranscriptPrompt" and not a.notification_only for a in facts.activity)


def _tail(lines: list[tuple[int, bytes]], records: _Records) -> tuple[list[RecordFacts], list[RecordFacts]]:
    """The tail's records from its last prompt on, in file order, and the titles named before that prompt."""
    last: list[RecordFacts] = []
    index = len(lines)
    while index > 0:
        index -= 1
        facts = records.read(*lines[index])
        if facts is None:
            continue
        last.append(facts)
        if _is_prompt(facts):
            break
    last.reverse()
    titles = [f for place, line in lines[:index] if _TITLES.search(line) and (f := records.read(place, line))]
    return last, titles


def glance(path: str, session_id: str) -> Glance:
    """The summary a head and a tail read give, and the tail's records; OSError when the file is unreadable."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, HEAD_BYTES, 0)
        # The tail overlaps the head in a small file (which may be all head): its records are what lists it.
        tail_at = max(0, size - TAIL_BYTES)
        tail = head[tail_at:] if size <= len(head) else os.pread(fd, size - tail_at, tail_at)
    finally:
        os.close(fd)
    summary = TranscriptSummary(session_id=session_id)
    seen = Glance(summary, bytes_read=len(head) + (len(tail) if size > len(head) else 0))
    records = _Records()
    _head(_lines(head, 0), summary, records)
    seen.tail, titles = _tail(_lines(tail, tail_at), records)
    for facts in [*titles, *seen.tail]:
        take(summary, facts)
    return seen
