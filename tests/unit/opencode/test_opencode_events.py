"""The plugin's records in the rules' words (events.py): each OpenCode state change is the hook event the rules
read, a child session's are its root session's sub-agent's, and what is not checked is dropped."""

from __future__ import annotations

import msgspec

from lunavect.clients.opencode.events import clean_title, error_name, evidence_from_record
from lunavect.evidence.spool_record import SpoolRecord

SID, CHILD = "ses_root0000000000000000001", "ses_child000000000000000001"


def mapped(**fields):
    record = msgspec.convert(
        {"v": 1, "client": "opencode", "t": 1_800_000_000.0, "session": SID, **fields}, SpoolRecord
    )
    return evidence_from_record(record)


def test_statuses_are_a_prompt_a_retry_and_the_turns_end() -> None:
    assert mapped(event="session.status", reason="busy", source="idle").kind == "UserPromptSubmit"
    retry = mapped(event="session.status", reason="retry", source="busy", error="rate_limit")
    assert (retry.kind, retry.error) == ("Retry", "rate_limit")
    assert mapped(event="session.status", reason="retry", source="busy", error="made-up").error == "unknown"
    through = mapped(event="session.status", reason="busy", source="retry")
    assert (through.kind, through.error) == ("Retry", None)
    assert mapped(event="session.status", reason="idle", source="busy").kind == "Interrupt"


def test_tools_permissions_questions_and_errors() -> None:
    assert mapped(event="message.part.updated", reason="running", tool="bash", tool_use_id="c1").kind == "PreToolUse"
    assert mapped(event="message.part.updated", reason="running", tool="question").kind == "Elicitation"
    assert mapped(event="message.part.updated", reason="error", tool="bash").kind == "PostToolUseFailure"
    assert mapped(event="permission.replied", reason="reject").reason == "deny"
    assert mapped(event="permission.replied", reason="always").reason == "allow"
    assert mapped(event="question.rejected").kind == "ElicitationResult"
    assert mapped(event="session.error", error="MessageAbortedError").kind == "Interrupt"
    failed = mapped(event="session.error", error="APIError", error_detail="429")
    assert (failed.kind, failed.error) == ("StopFailure", "rate_limit")
    assert mapped(event="session.error", error="APIError", error_detail="4290").error == "unknown"
    assert mapped(event="something.else") is None


def test_a_child_sessions_start_and_end_are_a_sub_agents() -> None:
    started = mapped(event="session.created", agent_id=CHILD, title="look around (@general subagent)")
    assert (started.kind, started.agent_id, started.session_id, started.title) == ("SubagentStart", CHILD, SID, None)
    assert mapped(event="session.status", reason="idle", source="busy", agent_id=CHILD).kind == "SubagentStop"


def test_error_names_and_titles() -> None:
    assert [error_name("APIError", s) for s in (401, 402, 500, 529, 400)] == [
        "authentication_failed", "billing_error", "server_error", "overloaded", "invalid_request",
    ]  # fmt: skip
    assert error_name("ProviderAuthError", None) == "authentication_failed" and error_name(None, None) == "unknown"
    assert clean_title("New session - 2026-12-01T16:41:34.804Z") is None and clean_title("Fix it") == "Fix it"
