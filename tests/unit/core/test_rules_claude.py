"""Every Claude Code state rule of the guide, with a clock the test controls."""

from __future__ import annotations

import pytest
from claude_rules_support import ASKING, BASH_TURN, STOP_FAILURES, T0, ev, play

from lunavect.core.model import BackgroundTask, ErrorReason, Evidence, State
from lunavect.core.rules import (
    BACKGROUND_AUTHORITY_S,
    EVENT_AUTHORITY_S,
    Facts,
    decide,
)


def catalog(at: float, status: str, **fields) -> Evidence:
    """What Claude Code's session catalog says of the session at that moment."""
    return ev("CatalogStatus", at, source="catalog", status=status, **fields)


def state_at(facts: Facts, at: float, **kwargs) -> State:
    return decide(facts, T0 + at, **kwargs).state


def shell(task_id: str, service: bool = False) -> BackgroundTask:
    return BackgroundTask(kind="shell", id=task_id, status="running", service=service)


def agent(task_id: str) -> BackgroundTask:
    return BackgroundTask(kind="agent", id=task_id, status="running")


# -- working ----------------------------------------------------------------------------------------------


def test_working_timer_is_the_current_responses_not_the_sessions():
    facts = play(
        ev("SessionStart", 0, start_source="startup"),
        ev("UserPromptSubmit", 10),
        ev("Stop", 20, background=()),
        ev("UserPromptSubmit", 100),
        ev("PreToolUse", 105, tool="Bash", tool_use_id="t1"),
    )
    decision = decide(facts, T0 + 110)
    assert decision.state is State.WORKING
    assert decision.activity == "Bash"
    assert decision.since == T0 + 100


def test_thinking_between_tools():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PreToolUse", 1, tool="Read", tool_use_id="t1"),
        ev("PostToolUse", 2, tool="Read", tool_use_id="t1"),
    )
    decision = decide(facts, T0 + 3)
    assert (decision.state, decision.activity) == (State.WORKING, "thinking")


# -- background -------------------------------------------------------------------------------------------


def test_stop_with_running_background_shell_is_background_then_ready_after_its_notification():
    facts = play(
        *BASH_TURN,
        ev("PostToolUse", 2, tool="Bash", tool_use_id="t1", background_started=shell("b1")),
        ev("Stop", 3, background=(shell("b1"),)),
    )
    decision = decide(facts, T0 + 4)
    assert decision.state is State.BACKGROUND
    assert decision.background == {"shell": 1}
    assert decision.since == T0 + 0  # the task's timer goes on
    facts = play(
        ev(
            "UserPromptSubmit",
            30,
            notification_only=True,
            background_ended=(BackgroundTask(kind="", id="b1", status="completed"),),
        ),
        facts=facts,
    )
    assert state_at(facts, 31) is State.WORKING
    assert decide(facts, T0 + 31).since == T0 + 0
    facts = play(ev("Stop", 35, background=()), facts=facts)
    assert state_at(facts, 36) is State.READY
    assert not facts.task_reply  # the completion reply of the person's task: its notification is due


def test_a_reply_to_a_task_event_after_the_reply_had_ended_is_marked_for_silence():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PostToolUse", 1, tool="Bash", tool_use_id="t1", background_started=shell("dev", service=True)),
        ev("Stop", 2, background=(shell("dev", service=True),)),
    )
    assert state_at(facts, 3) is State.READY and not facts.task_reply
    facts = play(ev("UserPromptSubmit", 20, notification_only=True), ev("Stop", 22, background=()), facts=facts)
    assert state_at(facts, 23) is State.READY and facts.task_reply  # the guide: this reply stays silent
    facts = play(ev("UserPromptSubmit", 40), ev("Stop", 42), facts=facts)
    assert state_at(facts, 43) is State.READY and not facts.task_reply  # the person's next prompt notifies


def test_capsule_grows_on_post_tool_use_and_is_set_exactly_at_subagent_stop_and_stop():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PostToolUse", 1, tool="Bash", tool_use_id="t1", background_started=shell("b1")),
        ev("PostToolUse", 2, tool="Agent", tool_use_id="t2", background_started=agent("a1")),
    )
    assert decide(facts, T0 + 3).background == {"shell": 1, "agent": 1}
    # A background command that ends while Claude works is counted until the next SubagentStop or Stop.
    facts = play(ev("UserPromptSubmit", 4, notification_only=True), facts=facts)
    assert decide(facts, T0 + 5).background == {"shell": 1, "agent": 1}
    facts = play(ev("SubagentStop", 6, agent_id="a1", background=(agent("a1"),)), facts=facts)
    assert decide(facts, T0 + 7).background == {"agent": 1}


def test_long_lived_services_do_not_hold_the_response():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PostToolUse", 1, tool="Bash", tool_use_id="t1", background_started=shell("dev", service=True)),
        ev("Stop", 2, background=(shell("dev", service=True),)),
    )
    assert state_at(facts, 3) is State.READY


def test_background_pause_lasts_an_hour_then_becomes_unknown():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 1, background=(shell("b1"),)))
    assert state_at(facts, 1 + BACKGROUND_AUTHORITY_S - 1) is State.BACKGROUND
    assert state_at(facts, 1 + BACKGROUND_AUTHORITY_S + 1) is State.UNKNOWN


def test_idle_poll_does_not_end_a_background_pause():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("Stop", 1, background=(shell("b1"),)),
        ev("Notification", 70, notification="idle_prompt"),
    )
    assert state_at(facts, 71) is State.BACKGROUND


def test_session_crons_never_hold_the_response():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 1, background=(), crons=2))
    assert state_at(facts, 2) is State.READY


def test_a_client_without_background_tasks_keeps_the_old_behaviour():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PostToolUse", 1, tool="Bash", tool_use_id="t1", background_started=shell("b1")),
        ev("Stop", 2),  # no background_tasks field at all
    )
    assert state_at(facts, 3) is State.READY


def test_closing_question_wins_over_background():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 1, background=(shell("b1"),), question=True))
    assert state_at(facts, 2) is State.INPUT


def test_subagent_tool_events_do_not_move_the_main_loop():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PreToolUse", 1, tool="Agent", tool_use_id="t1"),
        ev("PreToolUse", 2, tool="Grep", tool_use_id="t2", agent_id="a1"),
    )
    assert decide(facts, T0 + 3).activity == "Agent"
    facts = play(
        ev("Stop", 4, background=(agent("a1"),)),
        ev("PreToolUse", 5, tool="Read", tool_use_id="t3", agent_id="a1"),
        facts=facts,
    )
    assert state_at(facts, 6) is State.BACKGROUND


# -- compaction -------------------------------------------------------------------------------------------


def test_manual_compaction_has_its_own_timer_and_ends_idle():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 5, background=()), ev("PreCompact", 50, trigger="manual"))
    decision = decide(facts, T0 + 55)
    assert (decision.state, decision.since) == (State.COMPACTING, T0 + 50)
    facts = play(ev("PostCompact", 60, trigger="manual"), facts=facts)
    assert state_at(facts, 61) is State.IDLE


def test_automatic_compaction_keeps_the_running_responses_start_and_returns_to_it():
    facts = play(
        *BASH_TURN,
        ev("PostToolUse", 2, tool_use_id="t1"),
        ev("PreCompact", 3, trigger="auto"),
    )
    decision = decide(facts, T0 + 4)
    assert (decision.state, decision.since) == (State.COMPACTING, T0 + 0)
    facts = play(ev("SessionStart", 9, start_source="compact"), facts=facts)  # the fallback completion
    decision = decide(facts, T0 + 10)
    assert (decision.state, decision.since) == (State.WORKING, T0 + 0)


def test_idle_poll_cannot_cancel_a_fresh_compaction():
    facts = play(ev("PreCompact", 0, trigger="manual"), ev("Notification", 2, notification="idle_prompt"))
    assert state_at(facts, 3) is State.COMPACTING


def test_missing_compaction_completion_expires_after_ten_minutes():
    facts = play(ev("PreCompact", 0, trigger="manual"))
    assert state_at(facts, EVENT_AUTHORITY_S - 1) is State.COMPACTING
    assert state_at(facts, EVENT_AUTHORITY_S + 1) is State.UNKNOWN


def test_later_events_supersede_compaction():
    facts = play(ev("PreCompact", 0, trigger="manual"), ev("UserPromptSubmit", 5))
    assert state_at(facts, 6) is State.WORKING


# -- permission -------------------------------------------------------------------------------------------


def test_permission_request_then_notification_then_approval():
    facts = play(
        *ASKING,
    )
    decision = decide(facts, T0 + 3)
    assert (decision.state, decision.waiting_for, decision.since) == (State.PERMISSION, "Bash", T0 + 0)
    facts = play(ev("Notification", 8, notification="permission_prompt"), facts=facts)
    assert state_at(facts, 9) is State.PERMISSION
    facts = play(ev("PostToolUse", 20, tool="Bash", tool_use_id="t1"), facts=facts)
    assert state_at(facts, 21) is State.WORKING


def test_a_racing_pre_tool_use_does_not_clear_permission():
    facts = play(
        *ASKING,
        ev("PreToolUse", 2.1, tool="Read", tool_use_id="t2"),
        ev("PostToolUse", 2.2, tool="Read", tool_use_id="t2"),
    )
    assert state_at(facts, 3) is State.PERMISSION


def test_permission_cleared_by_a_new_prompt_or_the_turns_end():
    base = (ev("UserPromptSubmit", 0), ev("PermissionRequest", 1, tool="Bash"))
    assert state_at(play(*base, ev("UserPromptSubmit", 5)), 6) is State.WORKING
    assert state_at(play(*base, ev("Stop", 5, background=())), 6) is State.READY


def test_a_denied_permission_prompt_ends_when_the_catalog_turns_idle():
    facts = play(
        *ASKING,
    )
    facts = play(
        catalog(10, "idle"),
        facts=facts,
    )
    assert state_at(facts, 11) is State.IDLE


def test_a_permission_approved_in_the_client_works_on_its_tool_from_the_catalogs_busy():
    # Claude Code's live catalog says `busy` within a second or two of the approval; no hook fires until the
    # approved command ends (2.1.328, recorded with a 20-second command: issue 48, item 1).
    facts = play(*ASKING, catalog(2.3, "waiting", waiting_for="permission prompt"), catalog(9, "busy"))
    decision = decide(facts, T0 + 10)
    assert (decision.state, decision.activity, decision.since) == (State.WORKING, "Bash", T0)
    assert facts.acted_at == T0 + 9  # the person answered: notifications about the prompt are over
    late_echo = play(ev("Notification", 8.5, notification="permission_prompt"), facts=facts)
    assert state_at(late_echo, 11) is State.WORKING
    assert state_at(play(ev("PostToolUse", 30, tool="Bash", tool_use_id="t1"), facts=facts), 31) is State.WORKING


def test_a_quick_approval_counts_once_the_catalog_showed_the_wait():
    quick = play(*ASKING, catalog(2.1, "waiting", waiting_for="permission prompt"), catalog(2.4, "busy"))
    assert state_at(quick, 3) is State.WORKING
    # A busy row from before the prompt, read late, or one within the margin of it with no wait seen in the
    # catalog, says nothing of an answer.
    assert state_at(play(*ASKING, catalog(1.5, "busy")), 3) is State.PERMISSION
    assert state_at(play(*ASKING, catalog(2.5, "busy")), 3) is State.PERMISSION
    assert state_at(play(*ASKING, catalog(2.1, "waiting", waiting_for="permission prompt")), 3) is State.PERMISSION


def test_an_approval_before_any_tick_read_the_wait_counts_from_the_second_busy():
    # The collector read the turn's busy, then the prompt came and was approved within a second, between two
    # ticks: the catalog's next row is busy again, stamped after the prompt. Claude Code stamps a row only when
    # its status changes (2.1.328), so it came back from the wait.
    turn_busy = catalog(0.5, "busy")
    facts = play(*BASH_TURN, turn_busy, ev("PermissionRequest", 2, tool="Bash"), catalog(2.4, "busy"))
    decision = decide(facts, T0 + 3)
    assert (decision.state, decision.activity) == (State.WORKING, "Bash")
    # The same busy read again, at every tick, is no answer.
    again = play(*BASH_TURN, turn_busy, ev("PermissionRequest", 2, tool="Bash"), catalog(0.5, "busy"))
    assert state_at(again, 3) is State.PERMISSION
    # Nor is a busy after an earlier turn's busy (its idle never read): this turn's own busy, written late.
    earlier_turn = (catalog(-30, "busy"), ev("Stop", -20, background=()))
    late = play(*earlier_turn, *BASH_TURN, ev("PermissionRequest", 2, tool="Bash"), catalog(2.4, "busy"))
    assert state_at(late, 3) is State.PERMISSION


def test_a_dialog_answered_in_the_client_works_again_from_the_catalogs_busy():
    facts = play(*BASH_TURN, ev("Notification", 2, notification="agent_needs_input"), catalog(6, "busy"))
    assert (decide(facts, T0 + 7).state, decide(facts, T0 + 7).since) == (State.WORKING, T0)


# -- input ------------------------------------------------------------------------------------------------


def test_elicitation_and_link_requests_need_input():
    facts = play(ev("UserPromptSubmit", 0), ev("Notification", 1, notification="elicitation_dialog"))
    assert decide(facts, T0 + 2).waiting_for == "elicitation"
    facts = play(ev("UserPromptSubmit", 0), ev("Notification", 1, notification="elicitation_url_dialog"))
    assert (state_at(facts, 2), decide(facts, T0 + 2).waiting_for) == (State.INPUT, "link")
    facts = play(ev("Notification", 3, notification="elicitation_complete"), facts=facts)
    assert state_at(facts, 4) is State.WORKING


def test_closing_question_is_input_kept_by_idle_polls_without_renewing_its_time():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 10, background=(), question=True))
    assert state_at(facts, 11) is State.INPUT
    facts = play(ev("Notification", 70, notification="idle_prompt"), facts=facts)
    assert state_at(facts, 71) is State.INPUT
    # The idle poll did not extend it: ten minutes after the question itself, it is a ready response.
    assert state_at(facts, 10 + EVENT_AUTHORITY_S + 1) is State.READY


def test_resumed_work_supersedes_a_question_and_a_later_question_counts_again():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 10, question=True), ev("UserPromptSubmit", 20))
    assert state_at(facts, 21) is State.WORKING
    assert facts.superseded_question_at == T0 + 10
    facts = play(ev("Stop", 30, question=True), facts=facts)
    assert state_at(facts, 31) is State.INPUT


def test_permission_events_have_priority_over_input():
    facts = play(
        ev("UserPromptSubmit", 0),
        ev("PermissionRequest", 1, tool="Bash"),
        ev("Notification", 2, notification="elicitation_dialog"),
    )
    assert state_at(facts, 3) is State.PERMISSION


# -- ready, idle, error -----------------------------------------------------------------------------------


def test_resumed_session_is_idle_until_work_is_confirmed():
    facts = play(ev("UserPromptSubmit", 0), ev("Stop", 1), ev("SessionEnd", 2, reason="prompt_input_exit"))
    assert state_at(facts, 3) is State.READY
    facts = play(ev("SessionStart", 100, start_source="resume"), facts=facts)
    assert state_at(facts, 101) is State.IDLE


@pytest.mark.parametrize(("error", "detail", "reason"), STOP_FAILURES)
def test_error_reasons(error, detail, reason):
    facts = play(ev("UserPromptSubmit", 0), ev("StopFailure", 1, error=error, error_detail=detail))
    decision = decide(facts, T0 + 2)
    assert (decision.state, decision.error) == (State.ERROR, reason)


def test_transcript_api_error_decides_a_session_without_hooks():
    facts = play(
        Evidence(provider="claude", session_id="s", kind="TranscriptPrompt", at=T0, source="transcript"),
        Evidence(
            provider="claude",
            session_id="s",
            kind="TranscriptApiError",
            at=T0 + 1,
            source="transcript",
            http_status=429,
        ),
    )
    decision = decide(facts, T0 + 2)
    assert (decision.state, decision.error) == (State.ERROR, ErrorReason.LIMIT)


def test_hook_evidence_wins_over_transcript_records():
    facts = play(
        ev("UserPromptSubmit", 0),
        Evidence(provider="claude", session_id="s", kind="TranscriptResponse", at=T0 + 1, source="transcript"),
    )
    assert state_at(facts, 2) is State.WORKING


# -- offline, unknown, liveness ---------------------------------------------------------------------------


def test_offline_after_ten_seconds_without_network_while_working_keeps_the_timer():
    facts = play(ev("UserPromptSubmit", 0))
    assert state_at(facts, 20, offline_since=T0 + 15) is State.WORKING
    decision = decide(facts, T0 + 26, offline_since=T0 + 15)
    assert (decision.state, decision.since) == (State.OFFLINE, T0)
    assert state_at(facts, 30, offline_since=None) is State.WORKING


def test_events_lose_authority_after_ten_minutes():
    facts = play(*BASH_TURN)
    assert state_at(facts, 1 + EVENT_AUTHORITY_S - 1) is State.WORKING
    assert state_at(facts, 1 + EVENT_AUTHORITY_S + 1) is State.UNKNOWN


def test_late_post_tool_use_after_stop_does_not_restart_working():
    facts = play(
        *BASH_TURN,
        ev("Stop", 2, background=()),
        ev("PostToolUse", 3, tool="Bash", tool_use_id="t1"),
    )
    assert state_at(facts, 4) is State.READY


def test_refolding_never_changes_an_events_time():
    events = (ev("UserPromptSubmit", 0), ev("PreToolUse", 5, tool="Bash", tool_use_id="t1"))
    assert play(*events) == play(*events)
    assert decide(play(*events), T0 + 6).since == T0


@pytest.mark.parametrize(
    "events",
    [
        (ev("UserPromptSubmit", 0),),
        (ev("UserPromptSubmit", 0), ev("Stop", 1, background=(shell("b1"),))),
        (ev("UserPromptSubmit", 0), ev("PermissionRequest", 1, tool="Bash")),
        (ev("UserPromptSubmit", 0), ev("Notification", 1, notification="elicitation_dialog")),
    ],
)
def test_a_dead_process_is_never_working_background_permission_or_input(events):
    facts = play(*events)
    assert decide(facts, T0 + 2, alive=False).state in (State.IDLE, State.READY)
    assert decide(facts, T0 + 2, alive=None).state not in (State.IDLE, State.READY)


def test_esc_during_a_tool_ends_the_turn():
    facts = play(
        *BASH_TURN,
        ev("PostToolUseFailure", 2, tool="Bash", tool_use_id="t1", interrupt=True),
    )
    assert state_at(facts, 3) is State.IDLE


def test_esc_while_thinking_ends_with_the_idle_prompt_or_the_catalog():
    facts = play(ev("UserPromptSubmit", 0), ev("Notification", 65, notification="idle_prompt"))
    assert state_at(facts, 66) is State.IDLE
    facts = play(
        ev("UserPromptSubmit", 0),
        catalog(5, "idle"),
    )
    assert state_at(facts, 6) is State.IDLE


def test_an_idle_within_a_second_of_the_prompt_ends_the_turn_when_it_follows_this_turns_busy():
    # Copilot CLI's double Esc while the model answers, 0.7 s after its prompt (1.0.102): no hook and no record
    # says so, only the registry's `working: false`. A client stamps a row only when its status changes, so an
    # idle after this turn's own busy is the turn's end, however soon.
    prompt = (ev("UserPromptSubmit", 0), catalog(0.05, "busy"))
    assert state_at(play(*prompt, catalog(0.7, "idle")), 1) is State.IDLE
    # A denial as quick as that, the catalog having shown the wait.
    asked = (*prompt, ev("PermissionRequest", 0.2, tool="Bash"), catalog(0.25, "waiting", waiting_for="permission"))
    assert state_at(play(*asked, catalog(0.8, "idle")), 1) is State.IDLE
    # Without this turn's row before it, the margin still holds: an idle so close to the hooks proves nothing.
    assert state_at(play(ev("UserPromptSubmit", 0), catalog(0.7, "idle")), 1) is State.WORKING
    # Nor does an idle stamped before the hooks' last word.
    assert state_at(play(*prompt, ev("PreToolUse", 0.6, tool="Bash", tool_use_id="t1"), catalog(0.5, "idle")), 1) is (
        State.WORKING
    )
    # Nor one after an earlier turn's busy, whose idle no tick read.
    earlier = (catalog(-30, "busy"), ev("Stop", -20, background=()))
    assert state_at(play(*earlier, ev("UserPromptSubmit", 0), catalog(0.7, "idle")), 1) is State.WORKING


def test_a_catalog_row_older_than_the_hooks_cannot_end_a_turn():
    facts = play(
        ev("UserPromptSubmit", 10),
        catalog(9, "idle"),
    )
    assert state_at(facts, 11) is State.WORKING


def test_session_end_closes_a_turn():
    facts = play(ev("UserPromptSubmit", 0), ev("SessionEnd", 1, reason="other"))
    assert state_at(facts, 2) is State.IDLE


def test_lifecycle_only_launch_is_not_listed():
    facts = play(ev("SessionStart", 0, start_source="startup"), ev("SessionEnd", 1, reason="other"))
    assert decide(facts, T0 + 2).listed is False
    assert decide(play(ev("UserPromptSubmit", 0)), T0 + 1).listed is True


def test_a_dialog_of_the_clients_own_needs_input_and_ends_when_the_catalog_turns_idle():
    # Auto mode's "can't check actions in this session and needs your choice" reaches hooks only as this.
    facts = play(
        *BASH_TURN,
        ev("Notification", 2, notification="agent_needs_input"),
    )
    decision = decide(facts, T0 + 3)
    assert (decision.state, decision.waiting_for) == (State.INPUT, "dialog")
    facts = play(
        catalog(20, "idle"),
        facts=facts,
    )
    assert state_at(facts, 21) is State.IDLE


def test_a_catalog_wait_newer_than_the_hooks_shows_the_wait():
    facts = play(
        *BASH_TURN,
        catalog(5, "waiting", waiting_for="dialog open"),
    )
    decision = decide(facts, T0 + 6)
    assert (decision.state, decision.waiting_for, decision.basis) == (State.INPUT, "dialog", ("catalog",))
    facts = play(
        *BASH_TURN,
        catalog(5, "waiting", waiting_for="permission prompt"),
    )
    assert state_at(facts, 6) is State.PERMISSION


def test_the_late_permission_notification_of_an_answered_request_does_not_bring_it_back():
    facts = play(
        *ASKING,
        ev("PostToolUse", 4, tool="Bash", tool_use_id="t1"),  # answered within the notification's delay
        ev("Notification", 8, notification="permission_prompt"),
    )
    assert state_at(facts, 9) is State.WORKING
    # Without a PermissionRequest (an older client), the notification alone still means permission.
    facts = play(ev("UserPromptSubmit", 0), ev("Notification", 8, notification="permission_prompt"))
    assert state_at(facts, 9) is State.PERMISSION


def test_a_late_dialog_notice_after_the_turn_ended_is_ignored():
    facts = play(
        *BASH_TURN,
        catalog(4, "idle"),
        ev("Notification", 8, notification="agent_needs_input"),
    )
    assert state_at(facts, 9) is State.IDLE
