"""Which session needs its person most (`attention.needs_person`, what `lunavect next` and every front end's
"next" open, the popup lists and `status` names): a permission prompt, then a question or form, then a failed
turn; the longest wait first within each; never a ready reply or a silent machine's row, and a failed turn only
while its client is open and its row is not hidden."""

from __future__ import annotations

from unit_support import a_session

from lunavect.core.model import State
from lunavect.core.times import iso
from lunavect.listing import attention
from lunavect.sync.state_keys import HEARTBEAT_BASIS

NOW = 1_800_000_000.0


def waited(sid: str, state: State, seconds: float, **fields: object):
    """A session that last did anything `seconds` before NOW (when its wait began)."""
    fields.setdefault("open", True)
    return a_session(sid, state=state, last_active=iso(NOW - seconds), **fields)


def test_permission_then_input_then_error_the_longest_wait_first_within_each_and_never_a_ready_reply():
    sessions = [
        waited("ready-old", State.READY, 900),
        waited("error", State.ERROR, 60, error="limit"),
        waited("input", State.INPUT, 30, waiting_for="question"),
        waited("permission-new", State.PERMISSION, 5),
        waited("ready-new", State.READY, 10),
        waited("permission-old", State.PERMISSION, 300),
        waited("working", State.WORKING, 1000),
        waited("idle", State.IDLE, 5000),
    ]
    order = [s.session_id for s in attention.needs_person(sessions)]
    assert order == ["permission-old", "permission-new", "input", "error"]
    assert attention.summarize_sessions(sessions).next is not None
    assert attention.summarize_sessions(sessions).next.session_id == "permission-old"  # type: ignore[union-attr]


def test_silent_machines_ended_clients_and_hidden_errors_wait_for_nobody():
    """A hidden session that waits for a permission still needs its person (hiding never cancels work: it stays
    blocked, and the awaiting counter counts it); a failed turn the person hid does not."""
    sessions = [
        waited("hidden", State.PERMISSION, 900, hidden=True),
        waited("hidden-error", State.ERROR, 900, hidden=True),
        waited("silent", State.OFFLINE, 900, basis=[HEARTBEAT_BASIS], heard=iso(NOW - 3600)),
        waited("ended-ready", State.READY, 900, open=False),
        waited("ended-error", State.ERROR, 900, open=False),
        # A waiting state needs a running client by the rules themselves; its open flag is not asked.
        waited("question", State.INPUT, 10, open=False, waiting_for="question"),
    ]
    assert [s.session_id for s in attention.needs_person(sessions)] == ["hidden", "question"]
    assert attention.needs_person([]) == [] and attention.summarize_sessions([]).next is None


def test_rows_without_last_active_wait_since_their_timer_or_their_latest_evidence():
    older = a_session("a", state=State.PERMISSION, since=iso(NOW - 50), updated=iso(NOW - 5))
    newer = a_session("b", state=State.PERMISSION, updated=iso(NOW - 20))
    assert [s.session_id for s in attention.needs_person([newer, older])] == ["a", "b"]


def test_every_surface_takes_the_same_sessions_as_needing_you():
    """Two ready replies and nothing else: the counters say 0, the popup's list and `next` are empty, `status`
    names nobody (each surface asked the one definition, `needs_you`)."""
    sessions = [
        waited("ready-a", State.READY, 30),
        waited("ready-b", State.READY, 60),
        waited("ended-error", State.ERROR, 90, open=False, error="service"),
    ]
    summary = attention.summarize_sessions(sessions)
    assert (summary.awaiting_input, summary.errors, summary.attention, summary.next, summary.urgent) == (
        0,
        0,
        (),
        None,
        None,
    )
    assert attention.needs_person(sessions) == []
    failed = waited("failed", State.ERROR, 10, error="service")
    summary = attention.summarize_sessions([*sessions, failed])
    assert summary.errors == 1 and summary.urgent is summary.next is failed
    assert [s.session_id for s in summary.attention] == ["failed"]


def test_within_a_state_this_machines_session_comes_before_another_machines():
    # Another machine's row says it has waited longer: its host's own word, which decides nothing here.
    mine = waited("mine", State.PERMISSION, 5)
    theirs = waited("theirs", State.PERMISSION, 3000, host="alpha", heard=iso(NOW - 1))
    asking = waited("asking", State.INPUT, 9000, host="alpha", heard=iso(NOW - 1))
    assert [s.session_id for s in attention.needs_person([theirs, asking, mine])] == ["mine", "theirs", "asking"]
    summary = attention.summarize_sessions([theirs, asking, mine])
    assert summary.next is mine and summary.attention == (mine, theirs, asking)
    assert (summary.awaiting_input, summary.awaiting_elsewhere) == (3, 2)
    assert summary.working_elsewhere == 0


def test_a_dismissed_error_needs_nobody_until_the_next_one():
    """An error the person dismissed (seen, without hiding the row: issue 48, items 4 and 12) leaves `next`, the
    bars' error count and `status`; one not dismissed is still named first."""
    live = waited("live", State.ERROR, 30, error="service")
    seen = waited("seen", State.ERROR, 900, error="limit", dismissed=True)
    summary = attention.summarize_sessions([live, seen])
    assert (summary.errors, summary.attention, summary.urgent, summary.next) == (1, (live,), live, live)
    alone = attention.summarize_sessions([seen])
    assert (alone.errors, alone.level, alone.urgent, alone.next) == (0, "idle", None, None)
