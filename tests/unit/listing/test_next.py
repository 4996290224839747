"""Which session needs its person most (`attention.needs_person`, what `lunavect next` and every front end's
"next" open): a permission prompt, then a question or form, then a failed turn, then a ready reply; the longest
wait first within each; never a hidden row or a silent machine's, and a failed or ready one only while its
client is open."""

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


def test_permission_then_input_then_error_then_ready_the_longest_wait_first_within_each():
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
    assert order == ["permission-old", "permission-new", "input", "error", "ready-old", "ready-new"]
    assert attention.summarize_sessions(sessions).next is not None
    assert attention.summarize_sessions(sessions).next.session_id == "permission-old"  # type: ignore[union-attr]


def test_hidden_rows_silent_machines_and_ended_clients_wait_for_nobody():
    sessions = [
        waited("hidden", State.PERMISSION, 900, hidden=True),
        waited("silent", State.OFFLINE, 900, basis=[HEARTBEAT_BASIS], heard=iso(NOW - 3600)),
        waited("ended-ready", State.READY, 900, open=False),
        waited("ended-error", State.ERROR, 900, open=False),
        # A waiting state needs a running client by the rules themselves; its open flag is not asked.
        waited("question", State.INPUT, 10, open=False, waiting_for="question"),
    ]
    assert [s.session_id for s in attention.needs_person(sessions)] == ["question"]
    assert attention.needs_person([]) == [] and attention.summarize_sessions([]).next is None


def test_rows_without_last_active_wait_since_their_timer_or_their_latest_evidence():
    older = a_session("a", state=State.PERMISSION, since=iso(NOW - 50), updated=iso(NOW - 5))
    newer = a_session("b", state=State.PERMISSION, updated=iso(NOW - 20))
    assert [s.session_id for s in attention.needs_person([newer, older])] == ["a", "b"]
