"""Qwen Code's hook events, as the real 0.24.4 sent them (samples/hooks.jsonl, tests/clients/NOTES.md), through
the shim and its face into the rules' vocabulary, and folded in the order it sent them: each turn's state as the
rules decide it, a question as input, an API error with its reason, an approval dismissed with Esc as idle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.qwen import FACE as qwen
from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold
from lunavect.evidence.spool_record import decode
from lunavect.shim.payload import extract

SAMPLES = Path(__file__).resolve().parent / "samples"
HOOKS = [json.loads(line) for line in (SAMPLES / "hooks.jsonl").read_text().splitlines()]
SID = HOOKS[0]["payload"]["session_id"]


def evidence(payload: dict, at: float) -> Evidence | None:
    record = extract("qwen", payload)
    if record is None:
        return None
    record.update({"v": 1, "client": "qwen", "t": at})
    return qwen.evidence_from_record(decode(json.dumps(record).encode()))


def replay() -> list[tuple[dict, Evidence | None, Facts, float]]:
    """Every hook in order, with its evidence, the facts after it and its time."""
    facts, seen = Facts("qwen", SID), []
    for hook in HOOKS:
        ev = evidence(hook["payload"], hook["t"])
        if ev is not None:
            facts = fold(facts, ev)
        seen.append((hook["payload"], ev, facts, hook["t"]))
    return seen


def state_after(event: str, nth: int = 0, **match: str) -> tuple[State, Facts]:
    found = [
        (facts, at)
        for payload, _ev, facts, at in replay()
        if payload["hook_event_name"] == event and all(payload.get(k) == v for k, v in match.items())
    ]
    facts, at = found[nth]
    return decide(facts, at + 1).state, facts


@pytest.mark.parametrize(
    ("event", "match", "kind"),
    [
        ("SessionStart", {}, "SessionStart"),
        ("UserPromptSubmit", {"prompt": "say hello"}, "UserPromptSubmit"),
        ("UserPromptSubmit", {"prompt": ""}, "QwenContinuation"),  # the turn going on after its tools
        ("PermissionRequest", {"tool_name": "run_shell_command"}, "PermissionRequest"),
        ("PermissionRequest", {"tool_name": "ask_user_question"}, "Elicitation"),
        ("Notification", {"notification_type": "permission_prompt"}, "QwenNotification"),
        ("Notification", {"notification_type": "idle_prompt"}, "Interrupt"),
        ("PreToolUse", {}, "PreToolUse"),
        ("PostToolUse", {}, "PostToolUse"),
        ("PostToolBatch", {}, "QwenPostToolBatch"),
        ("Stop", {}, "Stop"),
        ("StopFailure", {}, "StopFailure"),
        ("SessionEnd", {}, "SessionEnd"),
    ],
)
def test_each_event_means_what_the_rules_call_it(event: str, match: dict, kind: str) -> None:
    payload = next(
        h["payload"]
        for h in HOOKS
        if h["payload"]["hook_event_name"] == event and all(h["payload"].get(k) == v for k, v in match.items())
    )
    found = evidence(payload, 10.0)
    assert found is not None and (found.provider, found.session_id, found.kind) == ("qwen", SID, kind)


def test_a_reply_ends_ready_and_the_idle_notice_after_it_leaves_it_so() -> None:
    assert state_after("Stop")[0] == State.READY
    assert state_after("Notification", 0, notification_type="idle_prompt")[0] == State.READY


def test_an_approval_waits_as_permission_and_its_tool_then_works() -> None:
    state, facts = state_after("PermissionRequest", 0, tool_name="run_shell_command")
    assert state == State.PERMISSION and facts.permission_tool == "run_shell_command"
    assert state_after("Notification", 0, notification_type="permission_prompt")[0] == State.PERMISSION
    state, facts = state_after("PreToolUse", 0, tool_name="run_shell_command")
    assert state == State.WORKING and facts.tool == "run_shell_command"


def test_the_turn_going_on_after_its_tools_is_no_new_prompt() -> None:
    before = state_after("PostToolBatch", 0)[1]
    state, after = state_after("UserPromptSubmit", 0, prompt="")
    assert state == State.WORKING and after.turn_started == before.turn_started


def test_its_question_tool_waits_as_input() -> None:
    state, facts = state_after("PermissionRequest", 0, tool_name="ask_user_question")
    assert state == State.INPUT and facts.input_reason == "elicitation"
    assert state_after("PreToolUse", 0, tool_name="ask_user_question")[0] == State.WORKING


def test_an_api_error_ends_in_error_with_its_reason_after_the_idle_notice_that_came_first() -> None:
    state, facts = state_after("StopFailure")
    assert state == State.ERROR and facts.error is not None


def test_an_approval_dismissed_with_esc_is_idle_from_the_idle_notice() -> None:
    assert state_after("PermissionRequest", 1, tool_name="run_shell_command")[0] == State.PERMISSION
    assert state_after("Notification", 4, notification_type="idle_prompt")[0] == State.IDLE


def test_no_prompt_text_reaches_the_evidence() -> None:
    for payload, ev, _facts, _at in replay():
        if ev is not None and payload.get("prompt"):
            assert payload["prompt"] not in repr(ev)


def test_a_turns_end_names_the_models_window() -> None:
    stops = [ev for payload, ev, _facts, _at in replay() if payload["hook_event_name"] == "Stop"]
    assert stops and all(ev is not None and ev.context_window == 200_000 for ev in stops)
    others = [ev for payload, ev, _facts, _at in replay() if ev is not None and payload["hook_event_name"] != "Stop"]
    assert others and all(ev.context_window is None for ev in others)


@pytest.mark.parametrize("bad", [True, 0, -1, "200000", 200_000.0, 1 << 41, None, [200_000]])
def test_a_window_that_is_no_count_is_left_out(bad: object) -> None:
    stop = next(hook["payload"] for hook in HOOKS if hook["payload"]["hook_event_name"] == "Stop")
    record = extract("qwen", {**stop, "context_limit": bad})
    assert record is not None and "window" not in record
