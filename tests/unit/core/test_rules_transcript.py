"""The rules for sessions seen only through Claude Code's transcript and live catalog (no hooks), with a
clock the test controls; and that hook events win when a hook reports the same session."""

from __future__ import annotations

from claude_rules_support import T0, play
from claude_rules_support import transcript_ev as ev

from lunavect.core.model import BackgroundTask, State
from lunavect.core.rules import EVENT_AUTHORITY_S, decide, fold


def agent(task_id: str) -> BackgroundTask:
    return BackgroundTask(kind="agent", id=task_id, status="running")


def test_prompt_then_tool_shows_the_tool_and_the_prompts_timer():
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptToolUse", 2, tool="Bash", tool_use_id="t1"))
    decision = decide(facts, T0 + 3)
    assert decision.state is State.WORKING
    assert decision.activity == "Bash"
    assert decision.since == T0
    assert decision.basis == ("transcript",)


def test_tool_result_returns_to_thinking_and_refreshes_freshness():
    facts = play(
        ev("TranscriptPrompt", 0),
        ev("TranscriptToolUse", 2, tool="Bash", tool_use_id="t1"),
        ev("TranscriptToolResult", EVENT_AUTHORITY_S, tool_use_id="t1"),
    )
    decision = decide(facts, T0 + EVENT_AUTHORITY_S + 5)
    assert decision.state is State.WORKING  # the result confirmed the turn: not stale yet
    assert decision.activity == "thinking"


def test_response_ends_the_turn():
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptResponse", 4))
    assert decide(facts, T0 + 5).state is State.READY


def test_response_with_running_agent_is_background_then_ready_when_it_ends():
    facts = play(
        ev("TranscriptPrompt", 0),
        ev("TranscriptToolUse", 1, tool="Agent", tool_use_id="t1"),
        ev("TranscriptResponse", 2),
        ev("TranscriptBackground", 2.5, background=(agent("a1"),)),
    )
    decision = decide(facts, T0 + 3)
    assert decision.state is State.BACKGROUND
    assert decision.background == {"agent": 1}
    assert decision.since == T0  # the task's timer goes on
    # The agent's end wakes Claude (a notification prompt): the same task works on, then it is ready.
    facts = fold(facts, ev("TranscriptPrompt", 10, notification_only=True))
    decision = decide(facts, T0 + 11)
    assert decision.state is State.WORKING
    assert decision.since == T0
    facts = fold(facts, ev("TranscriptResponse", 12))
    facts = fold(facts, ev("TranscriptBackground", 12, background=()))
    assert decide(facts, T0 + 13).state is State.READY


def test_background_already_known_holds_the_response():
    facts = play(
        ev("TranscriptPrompt", 0),
        ev("TranscriptBackground", 1, background=(agent("a1"),)),
        ev("TranscriptResponse", 2),
    )
    assert decide(facts, T0 + 3).state is State.BACKGROUND


def test_a_long_lived_service_never_holds_the_response():
    server = BackgroundTask(kind="shell", id="b1", status="running", service=True)
    facts = play(
        ev("TranscriptPrompt", 0), ev("TranscriptResponse", 2), ev("TranscriptBackground", 3, background=(server,))
    )
    assert decide(facts, T0 + 4).state is State.READY


def test_notification_wake_without_background_opens_a_working_turn():
    facts = play(
        ev("TranscriptPrompt", 0), ev("TranscriptResponse", 1), ev("TranscriptPrompt", 5, notification_only=True)
    )
    decision = decide(facts, T0 + 6)
    assert decision.state is State.WORKING
    assert decision.since == T0 + 5


def test_api_error_record_gives_the_reason_by_code_or_status():
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptApiError", 1, error="rate_limit", http_status=429))
    decision = decide(facts, T0 + 2)
    assert decision.state is State.ERROR and decision.error.value == "limit"
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptApiError", 1, http_status=401))
    assert decide(facts, T0 + 2).error.value == "auth"


def test_late_tool_records_do_not_restart_a_finished_turn():
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptResponse", 5), ev("TranscriptToolUse", 3, tool="Bash"))
    assert decide(facts, T0 + 6).state is State.READY


def test_metadata_alone_never_makes_a_listed_session():
    facts = play(ev("TranscriptMeta", 0, title="A saved title", cwd="/p", branch="main", version="2.1.328"))
    decision = decide(facts, T0 + 1)
    assert not decision.listed
    assert (facts.title, facts.cwd, facts.branch, facts.version) == ("A saved title", "/p", "main", "2.1.328")


def test_catalog_metadata_tmux_pane_and_entrypoint_are_kept():
    facts = play(ev("CatalogStatus", 0, source="catalog", status="idle", tmux="s0:@0.%0", entrypoint="cli", pid=7))
    assert (facts.tmux, facts.entrypoint, facts.pid) == ("s0:@0.%0", "cli", 7)
    assert not decide(facts, T0 + 1).listed  # an idle launch is not a task


def test_hook_events_win_over_transcript_records():
    facts = play(
        ev("UserPromptSubmit", 0, source="hook"),
        ev("PreToolUse", 1, source="hook", tool="Bash", tool_use_id="t1"),
        ev("TranscriptResponse", 2),  # a late or coarse record: the hook's exact events decide
        ev("TranscriptBackground", 3, background=(agent("a1"),)),
    )
    decision = decide(facts, T0 + 4)
    assert decision.state is State.WORKING
    assert decision.activity == "Bash"
    assert decision.background == {}
