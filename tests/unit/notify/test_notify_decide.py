"""The notification decision: committed transitions and a controlled clock in, notifications out."""

from __future__ import annotations

import json

from notify_support import T0, row

from lunavect.collector.snapshot import iso
from lunavect.core.model import Session, State
from lunavect.notify.decide import COALESCE_S, FRESH_S, QUIET_S, Decider, Policy, Transition
from lunavect.notify.kinds import KINDS


def moved(old: State | None, new: Session, **kw: bool) -> Transition:
    return Transition(old, new, **kw)


def test_reply_end_notifies_once_after_the_window() -> None:
    d = Decider()
    assert d.offer(moved(State.WORKING, row()), T0) == "pending"
    assert d.due(T0 + COALESCE_S / 2) == []
    [note] = d.due(T0 + COALESCE_S)
    assert note.title == "task 1"
    assert "proj1 · Claude Code (cli)" in note.body and "response ready since" in note.body
    assert note.open_id == "claude:s1"
    assert d.due(T0 + 10) == []


def test_same_state_again_is_no_change() -> None:
    d = Decider()
    assert d.offer(moved(State.READY, row()), T0) == "no kind"
    assert d.next_due() is None


def test_background_pause_is_silent_and_its_completion_reply_notifies() -> None:
    d = Decider()
    assert d.offer(moved(State.WORKING, row(state=State.BACKGROUND)), T0) == "no kind"
    assert d.offer(moved(State.BACKGROUND, row(state=State.WORKING)), T0 + 5) == "no kind"
    assert d.offer(moved(State.WORKING, row(at=T0 + 9)), T0 + 9) == "pending"
    assert len(d.due(T0 + 9 + COALESCE_S)) == 1


def test_a_reply_to_a_task_event_stays_silent_but_its_question_does_not() -> None:
    d = Decider()
    assert d.offer(moved(State.WORKING, row(1), task_reply=True), T0) == "a reply to a task event"
    asking = row(2, State.PERMISSION, waiting_for="Bash")
    assert d.offer(moved(State.WORKING, asking, task_reply=True), T0) == "pending"


def test_permission_names_the_tool_and_error_its_reason() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1, State.PERMISSION, waiting_for="Bash")), T0)
    [note] = d.due(T0 + COALESCE_S)
    assert "permission for Bash" in note.body
    d.offer(moved(State.WORKING, row(2, State.ERROR, error="limit")), T0 + 100)
    [note] = d.due(T0 + 100 + COALESCE_S)
    assert "limit reached" in note.body


def test_a_burst_is_one_notification_naming_every_session() -> None:
    d = Decider()
    for n in range(1, 6):
        assert d.offer(moved(State.WORKING, row(n)), T0 + n * 0.1) == "pending"
    [note] = d.due(T0 + 0.5 + COALESCE_S)
    assert note.title == "5 sessions: response ready"
    for n in range(1, 6):
        assert f"task {n}" in note.body
    assert len(note.items) == 5


def test_the_most_urgent_session_is_the_one_opened() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1)), T0)
    d.offer(moved(State.WORKING, row(2, State.PERMISSION, waiting_for="Edit")), T0)
    [note] = d.due(T0 + COALESCE_S)
    assert note.open_id == "claude:s2" and note.title == "2 sessions need you"


def test_the_person_answering_within_the_window_cancels_it() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1, State.PERMISSION, waiting_for="Bash")), T0)
    d.offer(moved(State.PERMISSION, row(1, State.WORKING)), T0 + 0.5)
    assert d.due(T0 + COALESCE_S) == []


def test_a_row_that_changes_without_changing_state_keeps_its_notification() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1)), T0)
    assert d.offer(moved(State.READY, row(1, title="a title read later")), T0 + 0.5) == "no kind"
    [note] = d.due(T0 + COALESCE_S, title_now=lambda key: "a title read later")
    assert note.title == "a title read later"


def test_quiet_period_per_session_passed_only_by_more_urgent_kinds() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(at=T0)), T0)
    assert len(d.due(T0 + COALESCE_S)) == 1
    assert d.offer(moved(State.WORKING, row(at=T0 + 5)), T0 + 5) == "quiet"
    assert d.offer(moved(State.WORKING, row(2, at=T0 + 5)), T0 + 5) == "pending"  # another session
    assert d.offer(moved(State.WORKING, row(state=State.PERMISSION, at=T0 + 6)), T0 + 6) == "pending"
    assert d.offer(moved(State.WORKING, row(at=T0 + QUIET_S + 10)), T0 + QUIET_S + 10) == "pending"


def test_never_for_unlisted_other_hosts_old_evidence_or_what_was_sent() -> None:
    sent = {("claude:s3", f"ready@{iso(T0)}")}
    d = Decider(already_sent=lambda key, mark: (key, mark) in sent, ours=lambda s: s.host == "here")
    assert d.offer(moved(State.WORKING, row(1), listed=False), T0) == "not listed"
    assert d.offer(moved(State.WORKING, row(2, host="elsewhere")), T0) == "not ours"
    assert d.offer(moved(State.WORKING, row(3)), T0) == "sent before"
    assert d.offer(moved(None, row(4, at=T0 - FRESH_S - 1)), T0) == "old evidence"
    assert d.next_due() is None


def test_hidden_sessions_only_when_asked() -> None:
    assert Decider().offer(moved(State.WORKING, row(), hidden=True), T0) == "hidden"
    asked = Decider(policy=Policy(hidden=True))
    assert asked.offer(moved(State.WORKING, row(), hidden=True), T0) == "pending"


def test_kinds_on_and_off_and_the_defaults() -> None:
    assert {k.name for k in KINDS if k.default_on} == {"ready", "permission", "input", "error"}
    d = Decider(policy=Policy(kinds=frozenset({"permission"})))
    assert d.offer(moved(State.WORKING, row()), T0) == "kind off"
    assert Decider(policy=Policy(enabled=False)).offer(moved(State.WORKING, row()), T0) == "off"
    stale = Decider(policy=Policy(kinds=frozenset({"stale"})))
    # Evidence that went stale is old by nature: the stale kind needs no fresh evidence.
    assert stale.offer(moved(State.WORKING, row(state=State.UNKNOWN, at=T0 - 700)), T0) == "pending"
    assert stale.offer(moved(State.IDLE, row(2, state=State.UNKNOWN)), T0) == "no kind"


def test_not_for_the_session_the_person_looks_at() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1)), T0)
    d.offer(moved(State.WORKING, row(2)), T0)
    [note] = d.due(T0 + COALESCE_S, looking_at=lambda key: key == "claude:s1")
    assert [i.key for i in note.items] == ["claude:s2"]
    d.offer(moved(State.WORKING, row(3)), T0 + 100)
    assert d.due(T0 + 100 + COALESCE_S, looking_at=lambda key: True) == []


def test_the_text_holds_only_stored_fields() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1, State.INPUT, waiting_for="question")), T0)
    [note] = d.due(T0 + COALESCE_S)
    payload = note.as_dict()
    assert json.loads(json.dumps(payload))["sessions"][0] == {
        "id": "claude:s1",
        "kind": "input",
        "title": "task 1",
        "project": "proj1",
        "provider": "claude",
        "client": "cli",
        "needs": "input needed: a question for you",
        "since": iso(T0).replace(".000Z", "Z"),
    }


def test_the_person_acting_on_a_session_ends_its_quiet_period() -> None:
    # Permission, notified; the person approves 5 s later and walks away; the reply is ready 10 s after that.
    d = Decider()
    asking = row(1, State.PERMISSION, at=T0, waiting_for="Bash")
    assert d.offer(moved(State.WORKING, asking, acted_at=T0 - 3), T0) == "pending"
    [first] = d.due(T0 + COALESCE_S)
    assert "permission for Bash" in first.body
    assert d.offer(moved(State.PERMISSION, row(1, State.WORKING, at=T0 + 5), acted_at=T0 + 5), T0 + 5) == "no kind"
    assert d.offer(moved(State.WORKING, row(1, at=T0 + 15), acted_at=T0 + 5), T0 + 15) == "pending"
    [second] = d.due(T0 + 15 + COALESCE_S)
    assert "response ready" in second.body and second.open_id == "claude:s1"


def test_a_session_that_moves_without_its_person_stays_quiet() -> None:
    d = Decider()
    d.offer(moved(State.WORKING, row(1, at=T0), acted_at=T0 - 3), T0)
    assert len(d.due(T0 + COALESCE_S)) == 1
    # Its own work (a background task's end woke it, a state read again): the person did nothing since.
    assert d.offer(moved(State.WORKING, row(1, at=T0 + 8), acted_at=T0 - 3), T0 + 8) == "quiet"
    assert d.offer(moved(State.WORKING, row(1, at=T0 + 9)), T0 + 9) == "quiet"  # a row that says nothing of it


def test_an_act_before_the_notification_was_shown_still_counts_as_after_it_was_offered() -> None:
    # The person answered just as the notification went out: the answer reached the collector after it.
    d = Decider()
    d.offer(moved(State.WORKING, row(1, State.PERMISSION, at=T0, waiting_for="Bash"), acted_at=T0 - 3), T0)
    assert len(d.due(T0 + COALESCE_S)) == 1
    assert d.offer(moved(State.WORKING, row(1, at=T0 + 4), acted_at=T0 + 1.4), T0 + 4) == "pending"


def test_the_first_act_of_a_session_that_never_said_it_counts_too() -> None:
    d = Decider()
    d.offer(moved(None, row(1, State.PERMISSION, at=T0, waiting_for="Bash")), T0)
    assert len(d.due(T0 + COALESCE_S)) == 1
    assert d.offer(moved(State.WORKING, row(1, at=T0 + 12), acted_at=T0 + 6), T0 + 12) == "pending"
