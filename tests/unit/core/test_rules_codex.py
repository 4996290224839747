"""The rules for Codex sessions: the same fold/decide as Claude's, with Codex's own evidence and freshness.

Pure: every test folds evidence and decides at a `now` the test chooses.
"""

from __future__ import annotations

import pytest

from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold

T = 1_800_000_000.0


def hook(kind: str, at: float, **fields) -> Evidence:
    return Evidence(provider="codex", session_id="t1", kind=kind, at=at, source="hook", **fields)


def roll(kind: str, at: float, **fields) -> Evidence:
    return Evidence(provider="codex", session_id="t1", kind=kind, at=at, source="rollout", **fields)


def catalog(kind: str, at: float, **fields) -> Evidence:
    return Evidence(provider="codex", session_id="t1", kind=kind, at=at, source="catalog", **fields)


def facts_of(*evidence: Evidence, provider: str = "codex") -> Facts:
    facts = Facts(provider, "t1")
    for ev in evidence:
        facts = fold(facts, ev)
    return facts


# -- freshness and the writer proof ---------------------------------------------------------------------------


def test_a_codex_event_goes_stale_after_120_s_unless_codex_writes_the_log() -> None:
    facts = facts_of(hook("UserPromptSubmit", T, turn_id="u1"), hook("PreToolUse", T + 1, tool="Bash"))
    assert decide(facts, T + 100).state is State.WORKING
    assert decide(facts, T + 100).activity == "Bash"
    assert decide(facts, T + 122).state is State.UNKNOWN
    # the exact rollout is open for writing by Codex: the unfinished response stays current
    held = decide(facts, T + 900, writer=True)
    assert held.state is State.WORKING and held.since == T and held.activity == "Bash"
    # no proof (unchecked or inaccessible): the ordinary rule
    assert decide(facts, T + 122, writer=None).state is State.UNKNOWN
    assert decide(facts, T + 122, writer=False).state is State.UNKNOWN


def test_claude_keeps_its_ten_minute_limit_and_ignores_a_writer_argument() -> None:
    claude = Facts("claude", "c1")
    claude = fold(claude, Evidence(provider="claude", session_id="c1", kind="UserPromptSubmit", at=T))
    assert decide(claude, T + 300).state is State.WORKING
    assert decide(claude, T + 601).state is State.UNKNOWN


def test_the_writer_proof_never_revives_a_finished_or_dead_session() -> None:
    ready = facts_of(hook("UserPromptSubmit", T), hook("Stop", T + 5))
    assert decide(ready, T + 500, writer=True).state is State.READY
    working = facts_of(hook("UserPromptSubmit", T, pid=123))
    assert decide(working, T + 10, alive=False, writer=True).state is State.IDLE


def test_permission_and_input_follow_the_codex_limit_too() -> None:
    asking = facts_of(
        hook("UserPromptSubmit", T),
        hook("PreToolUse", T + 1, tool="Bash"),
        hook("PermissionRequest", T + 2, tool="Bash"),
    )
    assert decide(asking, T + 60).state is State.PERMISSION
    assert decide(asking, T + 60).waiting_for == "Bash"
    assert decide(asking, T + 130).state is State.UNKNOWN
    assert decide(asking, T + 130, writer=True).state is State.PERMISSION
    answered = fold(asking, hook("PostToolUse", T + 20, tool="Bash"))
    assert decide(answered, T + 21).state is State.WORKING


def test_an_interrupt_ends_the_turn() -> None:
    facts = facts_of(hook("UserPromptSubmit", T), hook("PreToolUse", T + 1, tool="Bash"), hook("Interrupt", T + 3))
    assert decide(facts, T + 4, writer=True).state is State.IDLE


def test_a_closing_question_keeps_the_ten_minute_limit() -> None:
    facts = facts_of(hook("UserPromptSubmit", T), hook("Stop", T + 2, question=True))
    assert decide(facts, T + 300).state is State.INPUT
    assert decide(facts, T + 700).state is State.READY


# -- sub-agents ---------------------------------------------------------------------------------------------


def test_a_sub_agents_prompt_and_tools_are_not_parent_progress() -> None:
    facts = facts_of(
        hook("UserPromptSubmit", T, turn_id="p"),
        hook("PreToolUse", T + 1, tool="spawn_agent"),
        hook("PostToolUse", T + 2, tool="spawn_agent"),
        hook("SubagentStart", T + 2, agent_id="a1"),
        hook("UserPromptSubmit", T + 3, agent_id="a1", turn_id="child"),
    )
    decision = decide(facts, T + 4)
    assert decision.state is State.WORKING and decision.since == T  # the parent's own response timer
    ready = facts_of(
        hook("UserPromptSubmit", T),
        hook("Stop", T + 5),
        hook("UserPromptSubmit", T + 6, agent_id="a1"),
        hook("PreToolUse", T + 7, agent_id="a1"),
    )
    assert decide(ready, T + 8).state is State.READY


# -- the rollout without hooks -------------------------------------------------------------------------------


def test_rollout_boundaries_decide_a_session_without_hooks() -> None:
    facts = facts_of(roll("RolloutTurnStarted", T, turn_id="A"))
    working = decide(facts, T + 1)
    assert working.state is State.WORKING and working.since == T and working.listed
    assert working.activity == "thinking" and working.basis == ("rollout",)
    facts = fold(facts, roll("RolloutTool", T + 2, turn_id="A", tool="Bash", tool_use_id="c1"))
    assert decide(facts, T + 3).activity == "Bash"
    facts = fold(facts, roll("RolloutTool", T + 9, turn_id="A", tool=None, tool_use_id="c1"))
    assert decide(facts, T + 10).activity == "thinking"
    facts = fold(facts, roll("RolloutTurnComplete", T + 12, turn_id="A"))
    assert decide(facts, T + 13).state is State.READY
    facts = fold(facts, roll("RolloutTurnStarted", T + 20, turn_id="B"))
    facts = fold(facts, roll("RolloutTurnAborted", T + 25, turn_id="B"))
    assert decide(facts, T + 26).state is State.IDLE


def test_a_request_for_user_input_needs_input_until_the_answer() -> None:
    facts = facts_of(
        roll("RolloutTurnStarted", T, turn_id="A"),
        roll("RolloutInputRequest", T + 2, turn_id="A", tool="request_user_input"),
    )
    assert decide(facts, T + 3).state is State.INPUT
    facts = fold(facts, roll("RolloutTool", T + 30, turn_id="A", tool=None))
    decision = decide(facts, T + 31)
    assert decision.state is State.WORKING and decision.since == T


def test_rollout_freshness_is_120_s_and_rollout_activity_renews_it() -> None:
    facts = facts_of(roll("RolloutTurnStarted", T, turn_id="A"))
    assert decide(facts, T + 121).state is State.UNKNOWN
    facts = fold(facts, roll("RolloutActivity", T + 110, turn_id="A"))
    assert decide(facts, T + 200).state is State.WORKING
    assert decide(facts, T + 200).since == T  # activity is evidence, not a new response


def test_late_and_foreign_boundaries_never_restart_or_close_the_wrong_turn() -> None:
    facts = facts_of(roll("RolloutTurnStarted", T, turn_id="A"), roll("RolloutTurnComplete", T + 5, turn_id="A"))
    late = fold(facts, roll("RolloutTurnStarted", T, turn_id="A"))  # re-read after the end
    assert decide(late, T + 6).state is State.READY
    running = facts_of(roll("RolloutTurnStarted", T + 10, turn_id="B"))
    other = fold(running, roll("RolloutTurnComplete", T + 12, turn_id="A"))
    assert decide(other, T + 13).state is State.WORKING


def test_a_turn_seen_without_its_start_has_no_timer_until_the_start_is_recovered() -> None:
    facts = facts_of(roll("RolloutTurnSeen", T + 500, turn_id="X"))
    seen = decide(facts, T + 501)
    assert seen.state is State.WORKING and seen.since is None
    recovered = fold(facts, roll("RolloutTurnStarted", T + 1, turn_id="X"))
    assert decide(recovered, T + 502).since == T + 1  # the original event time
    # another response's start is never borrowed
    other = fold(facts, roll("RolloutTurnStarted", T + 1, turn_id="Y"))
    assert decide(other, T + 502).since is None


# -- the rollout beside hooks --------------------------------------------------------------------------------


def test_with_hooks_the_rollout_ends_the_hooks_open_turn_only() -> None:
    facts = facts_of(hook("UserPromptSubmit", T + 0.2, turn_id="A"))
    # the task_started record precedes the hook's time: it does not reopen or re-time the turn
    facts = fold(facts, roll("RolloutTurnStarted", T, turn_id="A"))
    assert decide(facts, T + 1).since == T + 0.2
    # a lost Stop: the rollout's own end still ends the turn
    ended = fold(facts, roll("RolloutTurnComplete", T + 5, turn_id="A"))
    assert decide(ended, T + 6).state is State.READY
    # another turn's end does not
    other = fold(facts, roll("RolloutTurnComplete", T + 5, turn_id="Z"))
    assert decide(other, T + 6).state is State.WORKING


def test_with_hooks_a_closing_question_survives_the_rollouts_end_of_turn() -> None:
    facts = facts_of(
        hook("UserPromptSubmit", T, turn_id="A"),
        hook("Stop", T + 3, question=True, turn_id="A"),
        roll("RolloutTurnComplete", T + 3.05, turn_id="A"),
    )
    assert decide(facts, T + 4).state is State.INPUT


def test_with_hooks_rollout_records_keep_the_turn_fresh_without_changing_it() -> None:
    facts = facts_of(
        hook("UserPromptSubmit", T, turn_id="A"),
        hook("PreToolUse", T + 1, tool="Bash"),
        roll("RolloutActivity", T + 100, turn_id="A"),
        roll("RolloutTool", T + 101, turn_id="A", tool=None),
    )
    decision = decide(facts, T + 200)
    assert decision.state is State.WORKING and decision.activity == "Bash"


# -- the catalog -----------------------------------------------------------------------------------------------


def test_a_failed_confirmation_downgrades_until_fresh_evidence_or_writer_proof() -> None:
    facts = facts_of(roll("RolloutTurnStarted", T, turn_id="A"), catalog("CatalogUnconfirmed", T + 5))
    assert decide(facts, T + 6).state is State.UNKNOWN
    assert decide(facts, T + 6, writer=True).state is State.WORKING
    renewed = fold(facts, roll("RolloutActivity", T + 7, turn_id="A"))
    assert decide(renewed, T + 8).state is State.WORKING
    assert renewed.session_id == "t1"  # the identity is kept


def test_catalog_metadata_alone_lists_nothing_and_changes_no_state() -> None:
    facts = facts_of(catalog("CatalogThread", T, title="Fix the tests", cwd="/w", client="exec"))
    decision = decide(facts, T + 1)
    assert not decision.listed and decision.state is State.IDLE
    assert facts.title == "Fix the tests" and facts.client == "exec"
    working = fold(facts_of(roll("RolloutTurnStarted", T, turn_id="A")), catalog("CatalogThread", T + 3))
    assert decide(working, T + 4).state is State.WORKING


@pytest.mark.parametrize("status, state", [("busy", State.WORKING), ("idle", State.IDLE)])
def test_a_live_catalog_status_works_as_for_claude(status: str, state: State) -> None:
    facts = facts_of(catalog("CatalogThread", T, status=status))
    assert decide(facts, T + 1).state is state


def test_an_approval_granted_in_the_tui_works_on_its_command_from_the_daemons_active_status() -> None:
    # Codex's daemon says `active` with `waitingOnApproval` while the dialog waits, then `active` with no flag
    # from the approval on; the next hook comes when the command ends (0.169.0: issue 48, item 1).
    asking = (
        hook("UserPromptSubmit", T, turn_id="u1"),
        hook("PreToolUse", T + 1, tool="Bash", tool_use_id="c1"),
        hook("PermissionRequest", T + 1.2, tool="Bash"),
        catalog("CatalogThread", T + 2, status="waiting", waiting_for="permission"),
    )
    assert decide(facts_of(*asking), T + 3).state is State.PERMISSION
    granted = facts_of(*asking, catalog("CatalogThread", T + 6, status="busy"))
    decision = decide(granted, T + 7)
    assert (decision.state, decision.activity, decision.since) == (State.WORKING, "Bash", T)
    # A read asked before the dialog opened, answered after its hook, is no approval.
    assert (
        decide(facts_of(*asking[:3], catalog("CatalogThread", T + 0.5, status="busy")), T + 3).state is State.PERMISSION
    )


# -- failed turns --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hooked", [False, True])
def test_a_failed_turn_is_an_error_with_its_reason(hooked: bool) -> None:
    first = hook("UserPromptSubmit", T, turn_id="A") if hooked else roll("RolloutTurnStarted", T, turn_id="A")
    facts = facts_of(first, roll("RolloutTurnComplete", T + 2, turn_id="A", error="rate_limit", http_status=429))
    decision = decide(facts, T + 3)
    assert decision.state is State.ERROR and decision.error.value == "limit"
    again = fold(facts, roll("RolloutTurnStarted", T + 10, turn_id="B"))
    assert decide(again, T + 11).state is State.WORKING and again.error is None


def test_a_failed_turns_error_stands_when_the_session_end_was_read_first() -> None:
    facts = facts_of(
        hook("UserPromptSubmit", T, turn_id="A"),
        hook("SessionEnd", T + 3),
        roll("RolloutTurnComplete", T + 2.9, turn_id="A", error="server_error", http_status=500),
    )
    decision = decide(facts, T + 4)
    assert decision.state is State.ERROR and decision.error.value == "service"
    # an interrupted turn's end is no error, and another turn's error changes nothing
    other = facts_of(
        hook("UserPromptSubmit", T, turn_id="A"),
        hook("SessionEnd", T + 3),
        roll("RolloutTurnComplete", T + 2.9, turn_id="Z", error="server_error"),
    )
    assert decide(other, T + 4).state is State.IDLE


def test_the_daemons_idle_then_the_rollouts_own_end_of_that_turn_decides_how_it_ended():
    """Codex's daemon may be read a moment after the turn ended: its idle ends the turn, and the rollout's
    record of that same turn, written just before, still says whether it was done or interrupted."""
    from lunavect.core.model import Evidence, State
    from lunavect.core.rules import Facts, decide, fold

    def ev(kind: str, at: float, source: str, **fields) -> Evidence:
        return Evidence(provider="codex", session_id="t", kind=kind, at=1_800_000_000.0 + at, source=source, **fields)

    for end, state in (("RolloutTurnAborted", State.IDLE), ("RolloutTurnComplete", State.READY)):
        facts = Facts("codex", "t")
        for item in (
            ev("RolloutTurnStarted", 0, "rollout", turn_id="u1"),
            ev("CatalogThread", 5, "catalog", status="busy"),
            ev("CatalogThread", 9, "catalog", status="idle"),
            ev(end, 8, "rollout", turn_id="u1"),
        ):
            facts = fold(facts, item)
        assert decide(facts, 1_800_000_010.0).state is state, end
        older = fold(facts, ev("RolloutTurnComplete", 1, "rollout", turn_id="u0"))
        assert decide(older, 1_800_000_010.0).state is state  # another turn's end never decides this one
