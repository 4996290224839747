"""GitHub Copilot CLI's hook events as the real 1.0.102 sent them (samples/hooks.jsonl: one run with an approval,
a failed tool, a question, a sub-agent, a compaction and an exit, and a failed request of another run given that
run's session; camelCase payloads naming no event), through the
shim with the event its entry names, and its face, into the rules' vocabulary; then a turn folded as the
collector folds it, with the events file's records and the live registry's, in the order they arrive."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from lunavect.clients.copilot import FACE as copilot
from lunavect.clients.copilot.hooks import EVENTS
from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold
from lunavect.evidence.spool_record import decode
from lunavect.shim.payload import extract

SAMPLES = Path(__file__).parent / "samples"
RUN = [json.loads(line) for line in (SAMPLES / "hooks.jsonl").read_text().splitlines()]
SID = RUN[0]["payload"]["sessionId"]


def hook(event: str, payload: dict, at: float) -> Evidence | None:
    record = extract("copilot", payload, event)
    assert record is not None
    record.update({"v": 1, "client": "copilot", "t": at})
    return copilot.evidence_from_record(decode(msgspec.json.encode(record)))


def test_every_event_of_a_run_in_the_rules_vocabulary() -> None:
    mapped = [(row["event"], hook(row["event"], row["payload"], 1.0)) for row in RUN]
    kinds = [(event, e.kind if e else None) for event, e in mapped if event in EVENTS]
    assert kinds == [
        ("sessionStart", "SessionStart"),
        ("userPromptSubmitted", "UserPromptSubmit"),
        ("preToolUse", "PreToolUse"),
        ("notification", "Notification"),
        ("postToolUse", "PostToolUse"),
        ("preToolUse", "PreToolUse"),
        ("notification", "Notification"),
        ("postToolUseFailure", "PostToolUseFailure"),
        ("preToolUse", "PreToolUse"),
        ("notification", "Notification"),
        ("postToolUse", "PostToolUse"),
        ("preToolUse", "PreToolUse"),
        ("subagentStart", "SubagentStart"),
        ("userPromptSubmitted", "UserPromptSubmit"),
        ("agentStop", "Stop"),
        ("subagentStop", "SubagentStop"),
        ("postToolUse", "PostToolUse"),
        ("agentStop", "Stop"),
        ("preCompact", "PreCompact"),
        ("sessionEnd", "SessionEnd"),
    ]
    evidence = [e for _event, e in mapped if e is not None]
    assert {e.session_id for e in evidence} == {SID}  # the sub-agent's own events are its session's
    assert [e.notification for e in evidence if e.kind == "Notification"] == [
        "permission_prompt",
        "permission_prompt",
        "elicitation_dialog",
    ]
    assert [e.tool for e in evidence if e.kind == "PreToolUse"] == ["bash", "view", "ask_user", "task"]
    sub = [e.kind for e in evidence if e.agent_id is not None and not e.kind.startswith("Copilot")]
    assert sub == ["SubagentStart", "UserPromptSubmit", "Stop", "SubagentStop"]
    # Events lunavect installs no entry for keep their own names: they say the session lives, nothing more.
    others = {event: e.kind for event, e in mapped if event not in EVENTS and e is not None}
    assert others == {
        "permissionRequest": "CopilotpermissionRequest",
        "userPromptTransformed": "CopilotuserPromptTransformed",
        "errorOccurred": "CopiloterrorOccurred",
    }
    kept = msgspec.json.encode(evidence)
    assert b"touch" not in kept and b"Which colour" not in kept and b"do everything" not in kept


def _turn(*events: tuple[str, int, float]) -> Facts:
    facts = Facts("copilot", SID)
    for event, index, at in events:
        rows = [row for row in RUN if row["event"] == event]
        found = hook(event, rows[index]["payload"], at)
        assert found is not None
        facts = fold(facts, found)
    return facts


def test_an_approval_waits_on_its_notification_not_on_the_request() -> None:
    facts = _turn(("userPromptSubmitted", 0, 10.0), ("preToolUse", 0, 11.0), ("permissionRequest", 0, 12.0))
    assert decide(facts, 13.0).state == State.WORKING  # the client's policy may still allow it
    facts = fold(facts, hook("notification", RUN[5]["payload"], 13.0))
    asking = decide(facts, 14.0)
    assert (asking.state, asking.waiting_for) == (State.PERMISSION, "bash")
    facts = fold(facts, hook("postToolUse", RUN[6]["payload"], 20.0))
    assert decide(facts, 21.0).state == State.WORKING
    facts = fold(facts, hook("agentStop", RUN[-3]["payload"], 30.0))
    assert decide(facts, 31.0).state == State.READY


def test_a_sub_agents_turn_end_is_not_the_sessions() -> None:
    facts = _turn(("userPromptSubmitted", 0, 10.0), ("preToolUse", 3, 11.0), ("subagentStart", 0, 12.0))
    facts = fold(
        facts, hook("userPromptSubmitted", [r for r in RUN if r["event"] == "userPromptSubmitted"][1]["payload"], 13.0)
    )
    facts = fold(facts, hook("agentStop", [r for r in RUN if r["event"] == "agentStop"][0]["payload"], 14.0))
    working = decide(facts, 15.0)
    assert (working.state, working.activity) == (State.WORKING, "task")


def test_the_live_registrys_end_of_a_turn_no_hook_ended() -> None:
    """A double Esc while the model answers: no hook, no record; the registry's `working: false`."""
    facts = _turn(("userPromptSubmitted", 0, 10.0))
    registry = Evidence("copilot", SID, "CatalogStatus", 30.0, "catalog", status="idle")
    after = decide(fold(facts, registry), 31.0)
    assert (after.state, after.basis) == (State.IDLE, ("catalog",))
    # Its idle a moment after the hooks' last word proves nothing: the turn's own Stop is on its way.
    early = Evidence("copilot", SID, "CatalogStatus", 10.5, "catalog", status="idle")
    assert decide(fold(facts, early), 11.0).state == State.WORKING
