"""GitHub Copilot CLI's events files as the real 1.0.102 wrote them (samples/, each a session's own lines, the
model's own snapshots and most hook runs left out), read as the collector reads them: each record's evidence once,
in its session's vocabulary, never its text; the title; the tokens of the session and of its sub-agents; a file
read on from its cursor, and read again from its start once the client rewrote it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec

from lunavect.clients.copilot.events_read import read_events
from lunavect.clients.copilot.records import read_line

SAMPLES = Path(__file__).parent / "samples"
BUDGET = 1 << 30


def events_file(tmp_path: Path, sample: str) -> Path:
    """The sample laid out as Copilot CLI lays it out: `session-state/<session id>/events.jsonl`."""
    first = json.loads((SAMPLES / f"{sample}.jsonl").read_text().splitlines()[0])
    folder = tmp_path / "session-state" / first["data"]["sessionId"]
    folder.mkdir(parents=True)
    shutil.copy(SAMPLES / f"{sample}.jsonl", folder / "events.jsonl")
    return folder / "events.jsonl"


def kinds(read) -> list[str]:
    return [evidence.kind for _id, evidence in read.evidence]


def test_a_turn_with_an_approval_a_failure_a_question_and_a_sub_agent(tmp_path) -> None:
    path = events_file(tmp_path, "every-hook")
    read = read_events(str(path), None, BUDGET, None, 0.0)
    assert read.session_id == path.parent.name and read.summary.title == "do everything"
    assert read.summary.cwd == "/tmp/copilot-tmp/e6/work"
    # Only the last prompt's turn is handed over, tools in order; the sub-agent's own records are not its turn.
    assert kinds(read) == [
        "TranscriptMeta",
        "TranscriptPrompt",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "TranscriptResponse",
        "TranscriptCompacted",
    ]
    tools = [e.tool for _id, e in read.evidence if e.kind == "TranscriptToolUse"]
    assert tools == ["bash", "view", "ask_user", "task"]
    assert len(read.summary.agents) == 1  # the explore agent: an internal session, never a row
    # Its sub-agent's tokens are counted as the sub-agent's.
    subagent = [d for d in read.deltas if d.subagent]
    assert len(subagent) == 1 and subagent[0].tokens.output == 5
    kept = msgspec.json.encode([e for _i, e in read.evidence]) + msgspec.json.encode(read.summary)
    assert b"touch" not in kept and b"Which colour" not in kept and b"All done" not in kept


def test_an_esc_a_rate_limit_and_the_usage_of_many_turns(tmp_path) -> None:
    path = events_file(tmp_path, "many-turns")
    read = read_events(str(path), None, BUDGET, "say hello please", 0.0)
    everything = [read_line(line) for line in path.read_bytes().splitlines()]
    errors = [line for line in everything if line is not None and line.kind == "api_error"]
    assert [(e.error, e.http_status) for e in errors] == [("rate_limit", 429)]
    assert sum(1 for line in everything if line is not None and line.kind == "interrupt") == 1
    # The workspace's name is the title; the last turn is the compaction's.
    assert read.evidence[0][1].title == "say hello please"
    assert kinds(read)[-1] == "TranscriptCompacted"
    assert read.summary.model == "gpt-4.1" and read.summary.window == 64000
    assert sum(d.tokens.output for d in read.deltas) == 85  # what its shutdown record counts


def test_cached_tokens_are_their_own_part_of_a_prompt(tmp_path) -> None:
    path = events_file(tmp_path, "tool-failure")
    read = read_events(str(path), None, BUDGET, None, 0.0)
    last = [line for line in map(read_line, path.read_bytes().splitlines()) if line and line.kind == "usage"][-1]
    assert (last.tokens.input, last.tokens.cache_read, last.tokens.output) == (400, 600, 20)
    assert read.summary.context == 1020
    results = [e for _id, e in read.evidence if e.kind == "TranscriptToolResult"]
    assert len(results) == 1  # the view that failed: its result ends it as any other


def test_a_provider_it_could_not_reach(tmp_path) -> None:
    path = events_file(tmp_path, "unreachable")
    read = read_events(str(path), None, BUDGET, None, 0.0)
    (failed,) = [e for _id, e in read.evidence if e.kind == "TranscriptApiError"]
    assert (failed.error_detail, failed.http_status) == ("ECONNREFUSED", None)


def test_a_file_is_read_on_from_its_cursor_and_again_once_rewritten(tmp_path) -> None:
    path = events_file(tmp_path, "abort-rewind")
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:12]))
    first = read_events(str(path), None, BUDGET, None, 0.0)
    path.write_bytes(whole)
    second = read_events(str(path), (first.cursor, first.summary), BUDGET, None, 0.0)
    assert not second.restarted and second.cursor.offset == len(whole)
    ids = {i for i, _e in first.evidence} | {i for i, _e in second.evidence}
    again = read_events(str(path), None, BUDGET, None, 0.0)
    assert {i for i, _e in again.evidence} <= ids  # the same records, the same ids
    # A double Esc takes a prompt back: the client writes the file again without it.
    path.write_bytes(b"".join(lines[:20]) + b'{"type":"session.usage_checkpoint","data":{}}\n')
    rewritten = read_events(str(path), (second.cursor, second.summary), BUDGET, None, 0.0)
    assert rewritten.restarted and rewritten.cursor.offset == path.stat().st_size


def test_a_line_that_is_no_record_is_counted_and_skipped(tmp_path) -> None:
    path = events_file(tmp_path, "unreachable")
    with path.open("ab") as f:
        f.write(b"not json\n" + b'{"type":"user.message","data":' + b"[" * 5000 + b"\n")
    read = read_events(str(path), None, BUDGET, None, 0.0)
    assert read.skipped == 2
