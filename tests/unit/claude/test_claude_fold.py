"""The fast whole read (claude/fold.py over records.read_matching) gives exactly what a plain reading gives.

The reference here reads a transcript the straightforward way: the whole file split at newlines, each line
tested for a "type" of one of the ten record types written out plainly, then decoded field by field
(`records.read_plain`, one nested field at a time), its facts folded into the summary one attribute at a time,
and the latest activity picked from every record's activity at the end. The fast path reads the file in
blocks, tests each line with the factored pattern, decodes most lines in one pass, folds field by field and
keeps the latest activity as it goes. Both must agree on the summary, the background-work observations, the
usage added (issue 19's totals), the evidence handed over and the lines skipped: on every real transcript of
../shared/data, and on generated transcripts where the bytes the cheap tests look for turn up inside strings,
escaped, in odd shapes and split across block boundaries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unit_support import shared_data_dir

from lunavect.clients.claude import transcript
from lunavect.clients.claude.fold import fold_lines
from lunavect.clients.claude.latest import TAIL_TOOLS, TAIL_TURNS, Latest
from lunavect.clients.claude.record_facts import RecordFacts
from lunavect.clients.claude.records import Unreadable, read_plain, read_record
from lunavect.clients.claude.summary import FirstResponse, TranscriptSummary, take_usage
from lunavect.clients.claude.transcript import AppendedLines
from lunavect.core.model import Evidence
from lunavect.usage import ledger

DATA = shared_data_dir() / "claude"
REAL_FILES = sorted(DATA.rglob("*.jsonl")) if DATA.is_dir() else []
SESSION = "5e55105e-0000-4000-8000-000000000001"
NOW = 2_000_000_000.0
# The cheap test as the records module documents it: a "type" key whose value is one of these, anywhere in the
# line, in any spacing a line can hold.
PLAIN_TEST = re.compile(
    rb'"type"[ \t\r]*:[ \t\r]*"(?:user|assistant|system|summary|custom-title|ai-title|agent-name|last-prompt'
    rb'|queue-operation|queued_command)"'
)


# -- the reference ---------------------------------------------------------------------------------------------


def reference_record(line: bytes, place: int) -> RecordFacts | None:
    return read_plain(line, place) if PLAIN_TEST.search(line) else None


def reference_take(summary: TranscriptSummary, facts: RecordFacts) -> None:
    at = facts.at
    if at is not None:
        summary.first_at = at if summary.first_at is None else min(summary.first_at, at)
        summary.last_at = at if summary.last_at is None else max(summary.last_at, at)
    for name in ("cwd", "branch", "version", "entrypoint", "session_kind", "custom_title", "agent_name", "ai_title"):
        if getattr(facts, name):
            setattr(summary, name, getattr(facts, name))
    if facts.summary:
        summary.summary = facts.summary
    if facts.human_prompt:
        summary.prompts += 1
        if at is not None:
            summary.last_prompt_at = at
    if summary.first_prompt is None and facts.prompt_title:
        summary.first_prompt = facts.prompt_title
    if summary.first_command is None and facts.command_title:
        summary.first_command = facts.command_title
    if facts.last_prompt:
        summary.last_prompt = facts.last_prompt
    kinds = [a.kind for a in facts.activity]
    summary.responses += kinds.count("TranscriptResponse")
    own = facts.session_id in (None, summary.session_id)
    if facts.response is not None and summary.first_response is None and own:
        summary.first_response = FirstResponse(facts.response, at, facts.uuid, facts.response_error)
    if facts.retry_status is not None:
        summary.api_errors += 1
        summary.last_api_error_status = facts.retry_status or None
        summary.last_api_error_at = at
    for act in facts.activity:
        if act.kind == "TranscriptApiError":
            summary.api_errors += 1
            summary.last_api_error_status = act.http_status
            summary.last_api_error_at = at
    if facts.compaction is not None:
        summary.compactions += 1
        summary.last_compaction_at = at
        summary.last_compaction_trigger = facts.compaction
    summary.interrupts += int(facts.interrupt)
    summary.observations += len(facts.observations)


def reference_evidence(records: list[RecordFacts]) -> list[tuple[str, Evidence]]:
    """The last prompt, then the latest tool records and the latest others after it, in file order."""
    found = []
    for facts in records:
        if facts.at is None:
            continue
        for index, act in enumerate(facts.activity):
            event_id = f"transcript:{SESSION}:{facts.uuid or '@' + str(facts.place)}:{index}"
            fields = dict(tool=act.tool, tool_use_id=act.tool_use_id, error=act.error, http_status=act.http_status)
            ev = Evidence(
                "claude", SESSION, act.kind, facts.at, "transcript", notification_only=act.notification_only, **fields
            )
            found.append((event_id, ev))
    prompts = [i for i, (_, ev) in enumerate(found) if ev.kind == "TranscriptPrompt" and not ev.notification_only]
    start = prompts[-1] + 1 if prompts else 0
    after = found[start:]
    tools = [item for item in after if item[1].kind in ("TranscriptToolUse", "TranscriptToolResult")][-TAIL_TOOLS:]
    turns = [item for item in after if item[1].kind not in ("TranscriptToolUse", "TranscriptToolResult")][-TAIL_TURNS:]
    kept = {id(item) for item in tools + turns}
    prompt = [found[prompts[-1]]] if prompts else []
    return prompt + [item for item in after if id(item) in kept]


def reference_fold(data: bytes):
    summary = TranscriptSummary(session_id=SESSION)
    observations: list = []
    usage = ledger.Deltas()
    records: list[RecordFacts] = []
    skipped = 0
    place = 0
    for line in data.split(b"\n")[:-1]:  # what follows the last newline is still being written
        start, place = place, place + len(line) + 1
        try:
            facts = reference_record(line, start)
        except Unreadable:
            summary.unreadable += 1
            skipped += 1
            continue
        if facts is None:
            continue
        reference_take(summary, facts)
        added = take_usage(summary, facts)
        if added is not None:
            assert facts.usage is not None
            usage.add(ledger.quarter_of(facts.at, NOW), facts.usage.model, facts.usage.subagent, added)
        observations.extend(facts.observations)
        records.append(facts)
    return summary, observations, usage.by_key, reference_evidence(records), skipped


def fast_fold(path: Path):
    summary = TranscriptSummary(session_id=SESSION)
    latest = Latest(SESSION)
    with AppendedLines(path, None, budget=1 << 40) as lines:
        folded = fold_lines(lines, summary, latest, NOW)
    return summary, folded.observations, folded.usage.by_key, latest.evidence(), folded.skipped


def assert_same(path: Path) -> None:
    fast, reference = fast_fold(path), reference_fold(path.read_bytes())
    assert msgspec.json.encode(fast[0]) == msgspec.json.encode(reference[0])
    assert fast[1:] == reference[1:]


# -- real transcripts ------------------------------------------------------------------------------------------


@pytest.mark.skipif(not REAL_FILES, reason=f"the shared real transcripts are not at {DATA}")
@pytest.mark.parametrize("block", [transcript.BLOCK_BYTES, 4096, 333])
def test_every_real_transcript_folds_as_the_plain_reading_does(tmp_path, monkeypatch, block):
    monkeypatch.setattr(transcript, "BLOCK_BYTES", block)
    for source in REAL_FILES:
        path = tmp_path / source.name
        path.write_bytes(source.read_bytes())
        assert_same(path)


@pytest.mark.skipif(not REAL_FILES, reason=f"the shared real transcripts are not at {DATA}")
def test_every_real_line_reads_as_the_plain_reading_does():
    for source in REAL_FILES:
        for place, line in enumerate(source.read_bytes().split(b"\n")):
            try:
                fast = read_record(line, place)
            except Unreadable:
                fast = "unreadable"
            try:
                plain = reference_record(line, place)
            except Unreadable:
                plain = "unreadable"
            assert fast == plain, f"{source.name}:{place + 1}"


def test_a_real_transcript_adds_usage_and_background_work():
    """The comparison above means something: the real files do carry usage, observations and evidence."""
    if not REAL_FILES:
        pytest.skip(f"the shared real transcripts are not at {DATA}")
    source = DATA / "spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    summary, observations, usage, evidence, _ = reference_fold(source.read_bytes())
    assert usage and observations and evidence and summary.responses > 0


# -- generated transcripts -------------------------------------------------------------------------------------

WORDS = [
    "user",
    "assistant",
    "system",
    "summary",
    "custom-title",
    "ai-title",
    "agent-name",
    "queue-operation",
    "queued_command",
    "progress",
    "attachment",
    "tool_result",
    "tool_use",
    "agentId",
    "isAsync",
    "backgroundTaskId",
    "resumedAgentId",
    "run_in_background",
    "usage",
]
texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: f'"{w}"'),
    st.sampled_from(
        [
            "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>",
            "[Request interrupted by user]",
            "<command-name>/x</command-name> go",
            "Caveat: local",
            "/clear",
            "",
            "  ",
        ]
    ),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**7), texts)
values = st.one_of(scalars, st.lists(scalars, max_size=2), st.dictionaries(st.sampled_from(WORDS), scalars, max_size=3))
maybe = st.one_of(st.just(...), values)  # `...`: the field is absent
times = st.one_of(
    st.just(...),
    st.sampled_from(
        [
            "2026-11-29T14:38:32.771Z",
            "2026-11-29T14:38:33Z",
            "2026-11-29T16:38:31.5+02:00",
            "2026-11-29T14:38:34",
            "2026-11-30T01:00:00.000Z",
            "bad",
            "",
        ]
    ),
    st.integers(0, 5),
)
counts = st.dictionaries(
    st.sampled_from(["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]),
    st.one_of(st.integers(0, 5000), st.just(-1), st.just(True), st.just("7"), st.just(2**41)),
    max_size=4,
)
work = st.fixed_dictionaries(
    {},
    optional={
        "agentId": st.one_of(st.just("a1"), texts, st.none()),
        "isAsync": st.one_of(st.booleans(), texts),
        "backgroundTaskId": st.one_of(st.just("b1"), texts, st.none()),
        "resumedAgentId": st.one_of(st.just("a1"), texts),
        "status": texts,
    },
)


def _absent_dropped(value: object) -> object:
    if isinstance(value, dict):
        return {k: _absent_dropped(v) for k, v in value.items() if v is not ...}
    return value


def _put(record: dict, key: str, value: object) -> None:
    if value is not ...:
        record[key] = value


@st.composite
def top(draw, kind: object) -> dict:
    record: dict = {}
    for key in ("parentUuid", "isSidechain", "cwd", "sessionId", "version", "gitBranch", "sessionKind"):
        value = draw(
            st.one_of(
                maybe,
                st.sampled_from(["/home/a", "/home/b", "main", "2.1.39", SESSION, "x" * 5000]),
                st.just(key == "isSidechain"),
            )
        )
        _put(record, key, False if key == "isSidechain" and value is True and draw(st.booleans()) else value)
    _put(record, "type", kind)
    _put(record, "uuid", draw(st.one_of(maybe, st.sampled_from(["u1", "u2", "u3", "u4"]))))
    _put(record, "timestamp", draw(times))
    _put(record, "entrypoint", draw(st.one_of(st.just(...), st.sampled_from(["cli", "sdk-cli"]))))
    return record


@st.composite
def blocks(draw) -> list:
    found = []
    for _ in range(draw(st.integers(0, 3))):
        block_kind = draw(
            st.sampled_from(["text", "thinking", "tool_use", "tool_result", "image", None] + ["tool_result"] * 3)
        )
        block: dict = {"type": block_kind}
        if block_kind == "text":
            block["text"] = draw(texts)
        elif block_kind == "tool_use":
            block["id"] = draw(st.one_of(st.sampled_from(["t1", "t2", "t3"]), values))
            block["name"] = draw(st.one_of(st.sampled_from(["Agent", "Task", "Bash", "SendMessage", "Read"]), values))
            block["input"] = draw(
                st.one_of(
                    values,
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "run_in_background": st.one_of(st.booleans(), texts),
                            "subagent_type": texts,
                            "command": st.sampled_from(["npm run dev", "sleep 5", "ls"]),
                        },
                    ),
                )
            )
        elif block_kind == "tool_result":
            block["tool_use_id"] = draw(st.one_of(st.sampled_from(["t1", "t2", "t3"]), st.just("t1"), values))
            _put(block, "is_error", draw(maybe))
            block["content"] = draw(texts)
        found.append(block)
    return found


@st.composite
def record_line(draw) -> bytes:
    kinds = [*WORDS[:9], "progress", "attachment", "file-history-snapshot", None, 5]
    kind = draw(st.sampled_from(["user", "assistant"] * 4 + kinds))
    record = draw(top(kind))
    if kind in ("user", "assistant"):
        content = draw(st.one_of(texts, blocks(), blocks(), values))
        message: object = {"role": kind, "content": content}
        if kind == "assistant":
            message = {
                "id": draw(st.one_of(maybe, st.sampled_from(["m1", "m2"]))),
                "model": draw(st.one_of(maybe, st.sampled_from(["claude-opus-4", "<synthetic>"]))),
                "content": content,
                "stop_reason": draw(st.one_of(maybe, st.sampled_from(["end_turn", "tool_use", "max_tokens"]))),
                "usage": draw(st.one_of(maybe, counts)),
            }
            _put(record, "isApiErrorMessage", draw(st.one_of(st.just(...), st.booleans())))
            _put(record, "error", draw(st.one_of(maybe, st.sampled_from(["rate_limit", "Bad Code"]))))
            _put(record, "apiErrorStatus", draw(st.one_of(maybe, st.just(429))))
        _put(record, "message", draw(st.one_of(st.just(message), st.just(message), maybe)))
        if kind == "user":
            results = st.one_of(maybe, work, work, st.lists(st.one_of(work, st.none()), max_size=2))
            _put(record, "toolUseResult", draw(results))
            _put(record, "origin", draw(st.one_of(maybe, st.just({"kind": "task-notification"}))))
            _put(record, "isMeta", draw(st.one_of(st.just(...), st.booleans())))
    elif kind == "system":
        _put(record, "subtype", draw(st.sampled_from(["api_error", "compact_boundary", "turn_duration", "other"])))
        _put(
            record,
            "error",
            draw(st.one_of(maybe, st.fixed_dictionaries({"status": st.one_of(st.none(), st.just(529))}))),
        )
        _put(record, "compactMetadata", draw(st.one_of(maybe, st.just({"trigger": "auto"}))))
    elif kind == "queue-operation":
        _put(record, "operation", draw(st.sampled_from(["enqueue", "dequeue", ...])))
        _put(record, "content", draw(st.one_of(texts, blocks(), maybe)))
    elif kind == "attachment":
        record["attachment"] = {"type": "queued_command", "commandMode": "task-notification", "prompt": draw(texts)}
    elif kind in ("custom-title", "ai-title", "agent-name", "summary"):
        for key in ("customTitle", "aiTitle", "agentName", "summary"):
            _put(record, key, draw(maybe))
    else:
        _put(record, "data", draw(values))
    line = json.dumps(_absent_dropped(record), separators=(",", ":"), ensure_ascii=draw(st.booleans())).encode()
    # The bytes the cheap tests key on, escaped (the same JSON, other bytes), and bytes that are no JSON at all.
    for plain, escaped in (
        (b'"user"', b'"\\u0075ser"'),
        (b'"assistant"', b'"\\u0061ssistant"'),
        (b'"agentId"', b'"agent\\u0049d"'),
        (b'"isAsync"', b'"is\\u0041sync"'),
        (b'"run_in_background"', b'"run_in_\\u0062ackground"'),
        (b'"usage"', b'"\\u0075sage"'),
        (b":", b": "),
    ):
        if plain in line and draw(st.integers(0, 7)) == 0:
            line = line.replace(plain, escaped, 1)
    damage = draw(st.sampled_from([None] * 12 + ["cut", "byte", "text"]))
    if damage == "cut":
        line = line[: draw(st.integers(0, len(line)))]
    elif damage == "byte" and b'"' in line:
        at = draw(st.integers(0, line.count(b'"') - 1))
        parts = line.split(b'"')
        parts[at] += b"\xff"
        line = b'"'.join(parts)
    elif damage == "text":
        line = b'not json "user" "assistant"'
    return line


PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(
    lines=st.lists(record_line(), min_size=1, max_size=25),
    block=st.integers(16, 600),
    tail=st.sampled_from([b"\n", b"", b'{"type":"user"']),
)
def test_a_generated_transcript_folds_as_the_plain_reading_does(tmp_path_factory, lines, block, tail):
    path = tmp_path_factory.mktemp("fold") / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + tail)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transcript, "BLOCK_BYTES", block)
        assert_same(path)
