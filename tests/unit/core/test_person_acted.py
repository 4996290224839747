"""When the person last acted on a session (`Facts.acted_at`): their prompt, a permission or a dialog answered, an
Esc; never the session's own work, a background task waking it, or a late echo of a prompt already answered."""

from __future__ import annotations

from claude_rules_support import ASKING, T0, ev, play

from lunavect.core.model import Evidence
from lunavect.core.rules import Facts, fold


def acted(facts: Facts) -> float | None:
    return None if facts.acted_at is None else facts.acted_at - T0


def test_a_prompt_is_the_person_acting_and_the_work_after_it_is_not():
    work = (ev("PreToolUse", 3, tool="Read", tool_use_id="t2"), ev("PostToolUse", 4, tool="Read", tool_use_id="t2"))
    assert acted(play(ev("UserPromptSubmit", 0), *work, ev("Stop", 5))) == 0


def test_a_permission_answered_is_the_person_acting_when_its_tool_goes_on():
    assert acted(play(*ASKING)) == 0
    # The late echo of the prompt (about 6 s after it) is the client's, not the person's.
    approved = play(*ASKING, ev("Notification", 8, notification="permission_prompt"))
    assert acted(approved) == 0
    approved = play(*ASKING, ev("PostToolUse", 10, tool="Bash", tool_use_id="t1"), ev("Stop", 20))
    assert acted(approved) == 10
    denied = play(*ASKING, ev("PostToolUseFailure", 9, tool="Bash", tool_use_id="t1"))
    assert acted(denied) == 9


def test_another_tools_result_does_not_answer_the_permission():
    racing = play(*ASKING, ev("PostToolUse", 3, tool="Read", tool_use_id="t0"))
    assert acted(racing) == 0


def test_a_background_task_waking_the_session_is_not_the_person():
    woke = play(ev("UserPromptSubmit", 0), ev("Stop", 5), ev("UserPromptSubmit", 30, notification_only=True))
    assert acted(woke) == 0


def test_an_esc_and_an_answered_form_are_the_person_acting():
    assert acted(play(ev("UserPromptSubmit", 0), ev("Interrupt", 4))) == 4
    form = play(ev("UserPromptSubmit", 0), ev("Elicitation", 1), ev("ElicitationResult", 7))
    assert acted(form) == 7


def test_without_hooks_the_transcript_says_the_same():
    def transcript(kind: str, at: float, **fields) -> Evidence:
        return ev(kind, at, source="transcript", **fields)

    asked = play(*ASKING, transcript("TranscriptToolUse", 1.5, tool="Bash", tool_use_id="t1"))
    assert acted(asked) == 0
    # The hook of the answer was lost (an HTTP hook while no collector listened): the tool's result tells.
    answered = fold(asked, transcript("TranscriptToolResult", 12, tool_use_id="t1"))
    assert acted(answered) == 12
    prompted = play(transcript("TranscriptPrompt", 3), transcript("TranscriptResponse", 4))
    assert acted(prompted) == 3
    assert acted(fold(prompted, transcript("TranscriptPrompt", 9, notification_only=True))) == 3


def test_a_late_record_of_an_earlier_act_moves_nothing():
    facts = play(ev("UserPromptSubmit", 10), ev("Stop", 12))
    assert acted(fold(facts, ev("TranscriptPrompt", 5, source="transcript"))) == 10
    unhooked = play(ev("TranscriptPrompt", 10, source="transcript"))
    assert acted(fold(unhooked, ev("TranscriptPrompt", 5, source="transcript"))) == 10
