"""Pi's events as lunavect's extension spooled them from the real 0.73.1 (samples/spool.jsonl: a reply, a tool run
and a reply, and another session's failed request), through its face, into the rules' vocabulary; then turns
folded as the collector folds them: an Esc, a failure's reason, a compaction, the session's end."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from lunavect.clients.pi import FACE as pi
from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold
from lunavect.evidence.spool_record import decode

SAMPLES = Path(__file__).parent / "samples"
RUN = [json.loads(line) for line in (SAMPLES / "spool.jsonl").read_text().splitlines()]
SID = RUN[0]["session"]


def mapped(record: dict) -> Evidence | None:
    return pi.evidence_from_record(decode(msgspec.json.encode(record)))


def record(event: str, at: float, **fields: object) -> dict:
    return {"v": 1, "client": "pi", "t": at, "event": event, "session": SID, "pid": 1, **fields}


def test_every_event_of_a_run_in_the_rules_vocabulary() -> None:
    kinds = [(row["event"], getattr(mapped(row), "kind", None)) for row in RUN]
    assert kinds == [
        ("session_start", "SessionStart"),
        ("agent_start", "UserPromptSubmit"),
        ("agent_end", "Stop"),
        ("agent_start", "UserPromptSubmit"),
        ("tool_execution_start", "PreToolUse"),
        ("tool_execution_end", "PostToolUse"),
        ("agent_end", "Stop"),
        ("session_start", "SessionStart"),
        ("agent_start", "UserPromptSubmit"),
        ("agent_end", "StopFailure"),
    ]
    tool = mapped(RUN[4])
    assert tool is not None and (tool.provider, tool.tool, tool.pid, tool.tty) == ("pi", "bash", 23195, "/dev/pts/0")
    failed = mapped(RUN[-1])
    assert failed is not None and failed.error == "invalid_request"
    start = mapped(RUN[0])
    assert start is not None and start.transcript and start.transcript.endswith(f"_{SID}.jsonl")


def _state(*records: dict) -> Facts:
    facts = Facts("pi", SID)
    for row in records:
        evidence = mapped(row)
        assert evidence is not None
        facts = fold(facts, evidence)
    return facts


def then(facts: Facts, row: dict) -> Facts:
    evidence = mapped(row)
    assert evidence is not None
    return fold(facts, evidence)


@pytest.mark.parametrize(
    ("detail", "reason"),
    [("401", "auth"), ("429", "limit"), ("503", "service"), ("400", "other"), ("ECONNREFUSED", "unreachable")],
)
def test_a_failed_prompt_is_an_error_with_its_reason(detail: str, reason: str) -> None:
    facts = _state(record("agent_start", 1.0), record("agent_end", 2.0, reason="error", error_detail=detail))
    decided = decide(facts, now=3.0, alive=True)
    assert (decided.state, decided.error) == (State.ERROR, reason)


def test_an_esc_is_idle_a_compaction_compacting_and_a_quit_ended() -> None:
    interrupted = _state(record("agent_start", 1.0), record("tool_execution_start", 1.5, tool="bash"))
    assert decide(interrupted, now=2.0, alive=True).state == State.WORKING
    interrupted = then(interrupted, record("agent_end", 3.0, reason="aborted"))
    assert decide(interrupted, now=4.0, alive=True).state == State.IDLE

    compacting = _state(record("agent_end", 1.0, reason="stop"), record("session_before_compact", 2.0))
    assert decide(compacting, now=3.0, alive=True).state == State.COMPACTING
    compacting = then(compacting, record("session_compact", 4.0))
    assert decide(compacting, now=5.0, alive=True).state != State.COMPACTING

    ended = _state(record("agent_start", 1.0), record("session_shutdown", 2.0, reason="quit"))
    assert ended.ended and decide(ended, now=3.0, alive=False).state != State.WORKING


def test_a_record_naming_no_session_or_an_unknown_event_says_nothing() -> None:
    assert mapped({**record("agent_start", 1.0), "session": "../x"}) is None
    assert mapped(record("message_update", 1.0)) is None
