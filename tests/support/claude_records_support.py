"""Claude Code transcript records as 2.1.328 writes them, built for the tests of what a line means and of what a
file sums up to: a record of a kind at a second of a fixed minute, a typed prompt, and a file's summary."""

from __future__ import annotations

import json

from lunavect.clients.claude.records import read_record
from lunavect.clients.claude.summary import TranscriptSummary, take

SESSION = "11111111-2222-3333-4444-555555555555"
BASE = {
    "isSidechain": False,
    "sessionId": SESSION,
    "cwd": "/srv/p",
    "version": "2.1.328",
    "gitBranch": "main",
    "entrypoint": "cli",
    "userType": "external",
}


def line(record: dict, compact: bool = True) -> bytes:
    return json.dumps(record, separators=(",", ":") if compact else None).encode()


def rec(kind: str, n: int = 0, **fields) -> dict:
    return {**BASE, "type": kind, "uuid": f"u{n}", "timestamp": f"2026-11-29T14:00:{n:02d}.000Z", **fields}


def prompt(n, text, **fields):
    fields = {"origin": {"kind": "human"}, "promptSource": "typed", **fields}
    return rec("user", n, message={"role": "user", "content": text}, **fields)


def summarize(*records) -> TranscriptSummary:
    summary = TranscriptSummary(session_id=SESSION)
    for place, record in enumerate(records):
        facts = read_record(line(record), place)
        if facts is not None:
            take(summary, facts)
    return summary
