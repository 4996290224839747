"""Gemini CLI's hook events, as the real 0.61.0 sent them (tests/clients/NOTES.md), through the shim and its face
into the rules' vocabulary; then a whole permission turn, a question, a denial, an API error and Esc folded as
the collector folds them, in either order of hook and chat record."""

from __future__ import annotations

import json

import msgspec
import pytest

from lunavect.clients.gemini import FACE as gemini
from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold
from lunavect.evidence.spool_record import decode
from lunavect.shim.payload import extract

SID = "313e0004-2a65-46a1-809a-29f16d926489"
BASE = {
    "session_id": SID,
    "transcript_path": f"/home/u/.gemini/tmp/work/chats/session-2026-12-01T17-03-{SID[:8]}.jsonl",
    "cwd": "/home/u/work",
    "timestamp": "2026-12-01T17:03:18.762Z",
}
EXEC = {
    "notification_type": "ToolPermission",
    "message": "Tool Confirm Shell Command requires execution",
    "details": {
        "type": "exec",
        "title": "Confirm Shell Command",
        "command": "touch secret-cmd",
        "rootCommand": "touch",
    },
}


def hook(event: str, at: float, **fields) -> Evidence:
    record = extract("gemini", {**BASE, "hook_event_name": event, **fields})
    assert record is not None
    record.update({"v": 1, "client": "gemini", "t": at})
    evidence = gemini.evidence_from_record(decode(json.dumps(record).encode()))
    assert evidence is not None
    return evidence


def chat(kind: str, at: float, **fields) -> Evidence:
    return Evidence("gemini", SID, kind, at, "transcript", **fields)


def run(*evidence: Evidence) -> Facts:
    facts = Facts("gemini", SID)
    for ev in evidence:
        facts = fold(facts, ev)
    return facts


def state(facts: Facts, now: float = 100.0) -> State:
    return decide(facts, now).state


@pytest.mark.parametrize(
    ("event", "fields", "kind"),
    [
        ("SessionStart", {"source": "startup"}, "SessionStart"),
        ("BeforeAgent", {"prompt": "hi"}, "UserPromptSubmit"),
        ("BeforeTool", {"tool_name": "run_shell_command", "tool_input": {"command": "x"}}, "PreToolUse"),
        ("Notification", EXEC, "PermissionRequest"),
        ("Notification", {**EXEC, "details": {"type": "ask_user", "title": "Ask User"}}, "Elicitation"),
        ("AfterTool", {"tool_name": "run_shell_command", "tool_response": {"llmContent": "out"}}, "PostToolUse"),
        ("AfterAgent", {"prompt": "hi", "prompt_response": "there", "stop_hook_active": False}, "Stop"),
        ("PreCompress", {"trigger": "manual"}, "PreCompact"),
        ("PreCompress", {"trigger": "auto"}, "GeminiPreCompress"),  # before every model call: no compaction
        ("SessionEnd", {"reason": "exit"}, "SessionEnd"),
    ],
)
def test_each_event_means_what_the_rules_call_it(event: str, fields: dict, kind: str) -> None:
    evidence = hook(event, 10.0, **fields)
    assert (evidence.provider, evidence.session_id, evidence.kind) == ("gemini", SID, kind)


def test_the_shim_keeps_the_confirmations_kind_and_nothing_beside_it() -> None:
    record = extract("gemini", {**BASE, "hook_event_name": "Notification", **EXEC})
    assert record is not None and record["detail"] == "exec" and record["ntype"] == "ToolPermission"
    assert "secret-cmd" not in json.dumps(record) and "Confirm Shell" not in json.dumps(record)


def test_a_permission_granted_shows_working_only_from_the_title_then_ready_at_its_stop() -> None:
    asked = run(
        hook("BeforeAgent", 1.0, prompt="p"),
        hook("BeforeTool", 2.0, tool_name="run_shell_command"),
        hook("Notification", 2.5, **EXEC),
    )
    assert state(asked, 3.0) == State.PERMISSION
    assert decide(asked, 3.0).waiting_for == "run_shell_command"
    granted = fold(asked, Evidence("gemini", SID, "PaneTitle", 5.0, "title", status="busy"))
    assert state(granted, 5.5) == State.WORKING and decide(granted, 5.5).since is not None
    finished = fold(fold(granted, hook("AfterTool", 9.0, tool_name="run_shell_command")), hook("AfterAgent", 9.5))
    assert state(finished, 10.0) == State.READY


def test_a_title_read_a_moment_after_the_request_does_not_answer_it() -> None:
    asked = run(hook("BeforeAgent", 1.0), hook("BeforeTool", 2.0, tool_name="x"), hook("Notification", 2.5, **EXEC))
    early = fold(asked, Evidence("gemini", SID, "PaneTitle", 3.0, "title", status="busy"))
    assert early.phase == State.PERMISSION


def test_a_question_is_input_needed_until_its_tool_ends() -> None:
    asked = run(
        hook("BeforeAgent", 1.0),
        hook("BeforeTool", 2.0, tool_name="ask_user"),
        hook("Notification", 2.2, **{**EXEC, "details": {"type": "ask_user", "title": "Ask User"}}),
    )
    assert state(asked, 3.0) == State.INPUT
    answered = fold(asked, hook("AfterTool", 6.0, tool_name="ask_user"))
    assert state(answered, 6.5) == State.WORKING


@pytest.mark.parametrize("chat_first", [False, True])
def test_a_denied_permission_ends_the_turn_idle_from_the_chat_record(chat_first: bool) -> None:
    asked = [hook("BeforeAgent", 1.0), hook("BeforeTool", 2.0, tool_name="x"), hook("Notification", 2.5, **EXEC)]
    cancel = chat("TranscriptInterrupt", 4.0)
    facts = run(*asked, cancel)
    assert state(facts, 5.0) == State.IDLE
    del chat_first  # no hook follows a denial: the order question does not arise


@pytest.mark.parametrize("chat_first", [False, True])
def test_an_api_error_is_the_turns_end_whichever_is_read_first(chat_first: bool) -> None:
    prompt = hook("BeforeAgent", 1.0)
    stop = hook("AfterAgent", 1.6, prompt_response="[no response text]")
    error = chat("TranscriptApiError", 1.5, http_status=401)
    facts = run(prompt, error, stop) if chat_first else run(prompt, stop, error)
    decision = decide(facts, 2.0)
    assert (decision.state, decision.error and decision.error.value) == (State.ERROR, "auth")


@pytest.mark.parametrize("chat_first", [False, True])
def test_esc_is_idle_not_a_ready_reply_whichever_is_read_first(chat_first: bool) -> None:
    prompt = hook("BeforeAgent", 1.0)
    stop = hook("AfterAgent", 3.1, prompt_response="[no response text]")
    cancel = chat("TranscriptInterrupt", 3.0)
    facts = run(prompt, cancel, stop) if chat_first else run(prompt, stop, cancel)
    assert state(facts, 4.0) == State.IDLE


def test_esc_during_a_granted_tool_is_idle_though_its_cancelled_end_comes_after() -> None:
    facts = run(
        hook("BeforeAgent", 1.0),
        hook("BeforeTool", 2.0, tool_name="run_shell_command"),
        hook("Notification", 2.5, **EXEC),
        Evidence("gemini", SID, "PaneTitle", 4.0, "title", status="busy"),
        hook("AfterTool", 8.1, tool_name="run_shell_command"),  # the hooks fold first within a tick
        chat("TranscriptInterrupt", 8.0),
    )
    assert state(facts, 9.0) == State.IDLE


def test_an_old_error_never_ends_a_later_turn() -> None:
    facts = run(
        hook("BeforeAgent", 1.0), hook("AfterAgent", 2.0), hook("BeforeAgent", 5.0), chat("TranscriptApiError", 1.5)
    )
    assert state(facts, 6.0) == State.WORKING


def test_compress_is_compacting_until_its_record_though_the_title_says_ready() -> None:
    """Gemini CLI draws `◇  Ready` through a whole `/compress`: a ready title ends no compaction (it did, and a
    title said again while it settled ended a real one seconds early)."""
    compacting = run(hook("BeforeAgent", 1.0), hook("AfterAgent", 2.0), hook("PreCompress", 5.0, trigger="manual"))
    assert state(compacting, 6.0) == State.COMPACTING
    titled = fold(compacting, Evidence("gemini", SID, "PaneTitle", 9.0, "title", status="idle"))
    assert state(titled, 9.5) == State.COMPACTING
    assert state(fold(titled, chat("TranscriptCompacted", 10.0)), 10.5) == State.IDLE


def test_an_automatic_precompress_leaves_a_working_turn_working() -> None:
    facts = run(hook("BeforeAgent", 1.0), hook("PreCompress", 1.1, trigger="auto"))
    assert state(facts, 2.0) == State.WORKING


def test_a_title_never_moves_a_session_its_hooks_did_not_name() -> None:
    facts = run(chat("TranscriptPrompt", 1.0), Evidence("gemini", SID, "PaneTitle", 5.0, "title", status="waiting"))
    assert facts.phase == State.WORKING and facts.basis == ("transcript",)


def test_records_are_decoded_strictly() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode(b'{"v":1,"client":"gemini","event":"BeforeAgent","detail":5}')
