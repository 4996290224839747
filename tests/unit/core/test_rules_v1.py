"""The first rules, pure: evidence folded into facts, decided with a clock the test controls."""

from __future__ import annotations

import pytest
from claude_rules_support import STOP_FAILURES

from lunavect.core.model import Evidence, State
from lunavect.core.rules import EVENT_AUTHORITY_S, Facts, decide, error_reason, fold

T0 = 1_790_000_000.0


def ev(kind: str, at: float, **fields) -> Evidence:
    return Evidence(provider="claude", session_id="s1", kind=kind, at=T0 + at, **fields)


def run(*evidence: Evidence) -> Facts:
    facts = Facts("claude", "s1")
    for item in evidence:
        facts = fold(facts, item)
    return facts


def at(facts: Facts, seconds: float, alive: bool | None = None):
    return decide(facts, T0 + seconds, alive)


# A prompt whose Bash call has just ended.
TOOL_DONE = (
    ev("UserPromptSubmit", 5),
    ev("PreToolUse", 8, tool="Bash", tool_use_id="tu1"),
    ev("PostToolUse", 12, tool="Bash", tool_use_id="tu1"),
)


def test_prompt_starts_working_thinking_from_the_prompt_time():
    d = at(run(ev("SessionStart", 0, start_source="startup"), ev("UserPromptSubmit", 5)), 9)
    assert d.state is State.WORKING and d.activity == "thinking" and d.since == T0 + 5
    assert d.listed is True and d.basis == ("hook",) and d.error is None


def test_tool_shows_its_name_and_keeps_the_response_timer():
    facts = run(ev("UserPromptSubmit", 5), ev("PreToolUse", 8, tool="Bash", tool_use_id="tu1"))
    d = at(facts, 10)
    assert d.state is State.WORKING and d.activity == "Bash" and d.since == T0 + 5


def test_tool_end_is_thinking_again():
    facts = run(*TOOL_DONE)
    d = at(facts, 13)
    assert d.state is State.WORKING and d.activity == "thinking" and d.since == T0 + 5
    facts = fold(facts, ev("PreToolUse", 14, tool="Read", tool_use_id="tu2"))
    facts = fold(facts, ev("PostToolUseFailure", 15, tool="Read", tool_use_id="tu2"))
    assert at(facts, 16).activity == "thinking"


def test_end_of_another_tool_keeps_the_running_one():
    facts = run(
        ev("UserPromptSubmit", 0),
        ev("PreToolUse", 1, tool="Bash", tool_use_id="tu1"),
        ev("PostToolUse", 2, tool="Agent", tool_use_id="tu-other"),
    )
    assert at(facts, 3).activity == "Bash"


def test_tool_without_a_prompt_starts_a_response():
    """A resumed session's first sign of work may be a tool (no prompt seen): the timer starts there."""
    d = at(run(ev("PreToolUse", 3, tool="Edit", tool_use_id="tu1")), 4)
    assert d.state is State.WORKING and d.activity == "Edit" and d.since == T0 + 3


def test_stop_is_ready():
    facts = run(*TOOL_DONE, ev("Stop", 20))
    d = at(facts, 21)
    assert d.state is State.READY and d.activity is None and d.since is None and d.error is None
    assert d.listed is True
    # Ready does not expire into unknown: it is a resting state.
    assert at(facts, 20 + 10 * EVENT_AUTHORITY_S).state is State.READY


def test_next_prompt_restarts_the_timer():
    facts = run(ev("UserPromptSubmit", 5), ev("Stop", 20), ev("UserPromptSubmit", 100))
    d = at(facts, 101)
    assert d.state is State.WORKING and d.since == T0 + 100


@pytest.mark.parametrize(("error", "detail", "reason"), STOP_FAILURES)
def test_stop_failure_reasons(error, detail, reason):
    assert error_reason(error, detail) is reason
    facts = run(
        ev("UserPromptSubmit", 0),
        ev("PreToolUse", 1, tool="Bash", tool_use_id="tu1"),
        ev("StopFailure", 30, error=error, error_detail=detail),
    )
    d = at(facts, 31)
    assert d.state is State.ERROR and d.error is reason
    assert d.activity is None and d.since is None


def test_error_clears_on_the_next_prompt():
    facts = run(ev("UserPromptSubmit", 0), ev("StopFailure", 1, error="rate_limit"), ev("UserPromptSubmit", 60))
    d = at(facts, 61)
    assert d.state is State.WORKING and d.error is None and facts.error is None
    facts = fold(facts, ev("Stop", 70))
    assert at(facts, 71).state is State.READY and at(facts, 71).error is None


def test_late_post_tool_use_after_stop_does_not_restart_working():
    facts = run(
        ev("UserPromptSubmit", 0),
        ev("PreToolUse", 1, tool="Bash", tool_use_id="tu1"),
        ev("Stop", 5),
        ev("PostToolUse", 6, tool="Bash", tool_use_id="tu1"),
        ev("PostToolUseFailure", 7, tool="Bash", tool_use_id="tu1"),
    )
    d = at(facts, 8)
    assert d.state is State.READY and d.activity is None
    facts = run(
        ev("UserPromptSubmit", 0),
        ev("StopFailure", 5, error="rate_limit"),
        ev("PostToolUse", 6, tool="Bash", tool_use_id="tu1"),
    )
    assert at(facts, 8).state is State.ERROR


def test_session_start_only_is_not_listed():
    facts = run(ev("SessionStart", 0, start_source="startup"))
    d = at(facts, 1)
    assert d.listed is False
    assert d.state is not State.WORKING
    facts = fold(facts, ev("SessionEnd", 2, reason="prompt_input_exit"))
    assert at(facts, 3).listed is False
    # Notifications alone are no task either.
    assert at(run(ev("SessionStart", 0), ev("Notification", 60, notification="idle_prompt")), 61).listed is False


@pytest.mark.parametrize("kind", ["UserPromptSubmit", "PreToolUse", "Stop", "StopFailure", "PermissionRequest"])
def test_any_activity_lists_the_session(kind):
    assert at(run(ev("SessionStart", 0), ev(kind, 1, tool="Bash")), 2).listed is True


def test_working_without_events_for_too_long_is_unknown():
    facts = run(ev("UserPromptSubmit", 0), ev("PreToolUse", 10, tool="Bash", tool_use_id="tu1"))
    assert at(facts, 10 + EVENT_AUTHORITY_S).state is State.WORKING
    d = at(facts, 10 + EVENT_AUTHORITY_S + 1)
    assert d.state is State.UNKNOWN and d.activity is None and d.since is None and d.listed is True
    # A new event restores the authority of the hooks.
    facts = fold(facts, ev("PostToolUse", 10 + EVENT_AUTHORITY_S + 30, tool="Bash", tool_use_id="tu1"))
    d = at(facts, 10 + EVENT_AUTHORITY_S + 31)
    assert d.state is State.WORKING and d.since == T0


def test_a_dead_agent_is_not_working():
    facts = run(ev("UserPromptSubmit", 0, pid=4242, pstart=T0 - 100), ev("PreToolUse", 1, tool="Bash"))
    assert facts.pid == 4242 and facts.pstart == T0 - 100
    assert at(facts, 2, alive=True).state is State.WORKING
    assert at(facts, 2, alive=None).state is State.WORKING  # unknown liveness: trust the hooks
    d = at(facts, 2, alive=False)
    assert d.state is not State.WORKING and d.activity is None and d.since is None
    assert "process" in d.basis


def test_session_end_while_working_is_not_working():
    facts = run(ev("UserPromptSubmit", 0), ev("SessionEnd", 3, reason="other"))
    d = at(facts, 4)
    assert d.state is State.IDLE and facts.ended is True
    # A resumed session starts again.
    facts = fold(facts, ev("SessionStart", 10, start_source="resume"))
    facts = fold(facts, ev("UserPromptSubmit", 11))
    assert at(facts, 12).state is State.WORKING and not facts.ended


def test_fold_is_pure_and_ordered_by_observation():
    start = Facts("claude", "s1")
    facts = fold(start, ev("UserPromptSubmit", 5, cwd="/p", title="t", tty="/dev/pts/3"))
    assert start == Facts("claude", "s1")  # the input is not changed
    assert (facts.cwd, facts.title, facts.tty, facts.first_seen) == ("/p", "t", "/dev/pts/3", T0 + 5)
    # An older event arriving later moves first_seen but not last_event.
    facts = fold(facts, ev("SessionStart", 1))
    assert facts.first_seen == T0 + 1 and facts.last_event == "UserPromptSubmit" and facts.last_event_at == T0 + 5
    # Empty values never erase known ones.
    facts = fold(facts, ev("PreToolUse", 6, tool="Bash"))
    assert facts.cwd == "/p" and facts.title == "t"


def test_decide_is_deterministic():
    facts = run(ev("UserPromptSubmit", 0), ev("PreToolUse", 1, tool="Grep", tool_use_id="x"))
    assert at(facts, 5) == at(facts, 5)
    assert at(facts, 5).background == {}
