"""Hook events a client may send that Claude Code's and Codex's do not: a permission prompt answered
(allowed: the tool runs; denied: working until the client says how the turn ends), a retry with its reason and
the retried request going through, and a sub-agent's question (input needed for its session)."""

from __future__ import annotations

from claude_rules_support import T0, play
from claude_rules_support import transcript_ev as ev

from lunavect.core.model import ErrorReason, State
from lunavect.core.rules import decide


def hook(kind: str, at: float, **fields):
    return ev(kind, at, source="hook", **fields)


ASKED = (
    hook("UserPromptSubmit", 0),
    hook("PreToolUse", 1, tool="bash", tool_use_id="c1"),
    hook("PermissionRequest", 2, tool="bash", tool_use_id="c1"),
)


def test_an_allowed_permission_runs_its_tool():
    assert decide(play(*ASKED), T0 + 3).state is State.PERMISSION
    decision = decide(
        play(*ASKED, hook("PermissionAnswered", 4, tool="bash", tool_use_id="c1", reason="allow")), T0 + 5
    )
    assert (decision.state, decision.activity) == (State.WORKING, "bash")


def test_a_denied_permission_works_until_the_turn_ends():
    denied = (*ASKED, hook("PermissionAnswered", 4, tool="bash", tool_use_id="c1", reason="deny"))
    assert decide(play(*denied), T0 + 5).state is State.WORKING
    assert decide(play(*denied, hook("Interrupt", 5)), T0 + 6).state is State.IDLE


def test_another_calls_answer_leaves_the_prompt_waiting():
    other = play(*ASKED, hook("PermissionAnswered", 4, tool="bash", tool_use_id="c9", reason="allow"))
    assert decide(other, T0 + 5).state is State.PERMISSION


def test_a_retry_shows_its_reason_and_clears_when_the_request_goes_through():
    retrying = play(hook("UserPromptSubmit", 0), hook("Retry", 2, error="rate_limit"))
    decision = decide(retrying, T0 + 3)
    assert (decision.state, decision.activity, decision.error) == (State.WORKING, "retrying", ErrorReason.LIMIT)
    through = play(hook("UserPromptSubmit", 0), hook("Retry", 2, error="rate_limit"), hook("Retry", 4))
    decision = decide(through, T0 + 5)
    assert (decision.state, decision.error) == (State.WORKING, None) and decision.activity != "retrying"


def test_a_sub_agents_question_needs_the_person():
    asking = play(hook("UserPromptSubmit", 0), hook("Elicitation", 2, agent_id="child"))
    assert decide(asking, T0 + 3).state is State.INPUT
    answered = play(
        hook("UserPromptSubmit", 0),
        hook("Elicitation", 2, agent_id="child"),
        hook("ElicitationResult", 4, agent_id="child"),
    )
    assert decide(answered, T0 + 5).state is State.WORKING
