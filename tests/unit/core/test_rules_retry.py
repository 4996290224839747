"""A client that retries a failed request: the reason shows while it retries, plain working returns when a
response flows, and a final failure ends in the error as before (rules with a controlled clock; record shapes
as Claude Code 2.1.328 writes them)."""

from __future__ import annotations

import json

from claude_rules_support import T0, play
from claude_rules_support import transcript_ev as ev

from lunavect.clients.claude.records import read_record
from lunavect.core.model import ErrorReason, State
from lunavect.core.rules import decide, fold


def test_a_retry_shows_its_reason_while_working():
    facts = play(ev("TranscriptPrompt", 0), ev("TranscriptRetry", 2, http_status=529))
    decision = decide(facts, T0 + 3)
    assert (decision.state, decision.activity, decision.error) == (State.WORKING, "retrying", ErrorReason.SERVICE)
    assert decision.since == T0  # the response's timer goes on


def test_each_retry_keeps_the_session_current_and_a_connection_retry_is_unreachable():
    facts = play(
        ev("TranscriptPrompt", 0), *(ev("TranscriptRetry", 300 * n, error="connection_error") for n in (1, 2, 3))
    )
    decision = decide(facts, T0 + 1000)
    assert decision.state is State.WORKING and decision.error is ErrorReason.UNREACHABLE


def test_back_to_working_when_a_response_flows():
    retrying = play(ev("TranscriptPrompt", 0), ev("TranscriptRetry", 2, http_status=429))
    assert decide(retrying, T0 + 3).error is ErrorReason.LIMIT
    flowing = fold(retrying, ev("TranscriptToolUse", 5, tool="Bash", tool_use_id="t1"))
    decision = decide(flowing, T0 + 6)
    assert (decision.state, decision.activity, decision.error) == (State.WORKING, "Bash", None)
    assert decide(fold(retrying, ev("TranscriptResponse", 5)), T0 + 6).state is State.READY


def test_a_final_failure_ends_in_the_error_as_before():
    facts = play(
        ev("TranscriptPrompt", 0),
        ev("TranscriptRetry", 2, http_status=500),
        ev("TranscriptApiError", 9, http_status=500),
    )
    decision = decide(facts, T0 + 10)
    assert (decision.state, decision.error, decision.activity) == (State.ERROR, ErrorReason.SERVICE, None)


def test_with_hooks_the_transcript_alone_reports_retries_and_a_hook_event_ends_them():
    started = play(ev("UserPromptSubmit", 0, source="hook"))
    retrying = fold(started, ev("TranscriptRetry", 3, http_status=529))
    assert decide(retrying, T0 + 4).activity == "retrying"
    back = fold(retrying, ev("PreToolUse", 6, source="hook", tool="Read", tool_use_id="t1"))
    assert (decide(back, T0 + 7).activity, decide(back, T0 + 7).error) == ("Read", None)


def test_a_retry_read_late_never_undoes_newer_news():
    newer = play(ev("UserPromptSubmit", 0, source="hook"), ev("PreToolUse", 8, source="hook", tool="Read"))
    late = fold(newer, ev("TranscriptRetry", 5, http_status=529))
    assert decide(late, T0 + 9).error is None
    idle = play(ev("TranscriptPrompt", 0), ev("TranscriptResponse", 4))
    assert decide(fold(idle, ev("TranscriptRetry", 5, http_status=529)), T0 + 6).state is State.READY


def test_the_transcripts_retry_record_is_read_as_a_retry_with_its_reason():
    base = {"type": "system", "subtype": "api_error", "uuid": "u1", "timestamp": "2026-11-29T14:00:01.000Z"}
    overloaded = dict(base, error={"status": 529, "formatted": "Overloaded"}, retryAttempt=1, maxRetries=10)
    refused = dict(base, error={"connection": True, "isNetworkDown": False}, retryAttempt=2, maxRetries=10)
    kinds = []
    for record in (overloaded, refused):
        facts = read_record(json.dumps(record).encode())
        kinds.append([(a.kind, a.error, a.http_status) for a in facts.activity])
    assert kinds == [[("TranscriptRetry", None, 529)], [("TranscriptRetry", "connection_error", None)]]


def test_with_hooks_a_final_failure_the_stopfailure_hook_never_reported_still_ends_in_the_error():
    """Seen with the real `claude -p` under load: the retries, the transcript's final api_error record, the
    catalog's idle, SessionEnd, and no StopFailure hook at all. The failure must not read as plain idle."""
    facts = play(
        ev("UserPromptSubmit", 0, source="hook"),
        ev("TranscriptRetry", 1, http_status=500),
        ev("TranscriptApiError", 8, http_status=500),
        ev("CatalogStatus", 8.01, source="catalog", status="idle"),
    )
    decision = decide(facts, T0 + 9)
    assert (decision.state, decision.error, decision.activity) == (State.ERROR, ErrorReason.SERVICE, None)
    # ... and a StopFailure that does arrive says the same.
    late = fold(facts, ev("StopFailure", 8.02, source="hook", error="server_error"))
    assert decide(late, T0 + 9).state is State.ERROR


def test_with_hooks_an_api_error_record_older_than_newer_hook_news_changes_nothing():
    newer = play(ev("UserPromptSubmit", 0, source="hook"), ev("PreToolUse", 8, source="hook", tool="Read"))
    late = fold(newer, ev("TranscriptApiError", 5, http_status=500))
    assert decide(late, T0 + 9).state is State.WORKING


def test_with_hooks_a_failure_read_after_the_session_end_still_ends_in_the_error():
    """The same run as the collector meets it when SessionEnd and the transcript's final record arrive
    within one tick: the spool's hooks fold first, so SessionEnd ends the turn before the failure's own
    record (older) is read. Seen with the real `claude -p` under load (tests/clients/test_retries.py)."""
    for between in ((), (ev("CatalogStatus", 8.01, source="catalog", status="idle"),)):
        facts = play(
            ev("UserPromptSubmit", 0, source="hook"),
            ev("TranscriptRetry", 1, http_status=500),
            *between,
            ev("SessionEnd", 8.05, source="hook", reason="other"),
            ev("TranscriptApiError", 8, http_status=500),
        )
        decision = decide(facts, T0 + 9)
        assert (decision.state, decision.error, decision.activity) == (State.ERROR, ErrorReason.SERVICE, None)


def test_a_failure_of_an_older_turn_never_lands_on_a_turn_cut_short_later():
    facts = play(
        ev("UserPromptSubmit", 0, source="hook"),
        ev("Stop", 3, source="hook"),
        ev("UserPromptSubmit", 5, source="hook"),
        ev("SessionEnd", 8, source="hook", reason="other"),
        ev("TranscriptApiError", 2, http_status=500),  # older than the turn the session end cut short
    )
    assert decide(facts, T0 + 9).state is State.IDLE


def test_without_hooks_a_failure_read_after_the_catalogs_idle_still_ends_in_the_error():
    facts = play(
        ev("TranscriptPrompt", 0),
        ev("CatalogStatus", 8.01, source="catalog", status="idle"),
        ev("TranscriptApiError", 8, http_status=500),
    )
    assert (decide(facts, T0 + 9).state, decide(facts, T0 + 9).error) == (State.ERROR, ErrorReason.SERVICE)
