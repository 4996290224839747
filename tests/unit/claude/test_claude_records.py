"""What one Claude Code transcript line means (shapes as Claude Code 2.1.328 writes them), and the
per-file summary: title order, metadata, first response, errors, compaction, interrupts."""

from __future__ import annotations

import json

import pytest
from claude_records_support import SESSION, line, prompt, rec, summarize

from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.core.model import ErrorReason
from lunavect.core.rules.facts import error_reason


def kinds(record) -> list[str]:
    facts = read_record(line(record))
    return [a.kind for a in facts.activity] if facts else []


def test_a_typed_prompt_is_a_prompt_and_its_text_on_one_line_a_title():
    facts = read_record(line(prompt(1, "  Fix the   login bug\nand then the rest")))
    assert [a.kind for a in facts.activity] == ["TranscriptPrompt"]
    assert facts.human_prompt and facts.prompt_title == "Fix the login bug and then the rest"
    assert (facts.cwd, facts.branch, facts.version, facts.entrypoint) == ("/srv/p", "main", "2.1.328", "cli")


def test_sdk_prompt_without_origin_is_a_prompt():
    record = rec("user", 1, message={"role": "user", "content": "nested hello"}, promptSource="sdk")
    assert kinds(record) == ["TranscriptPrompt"]


@pytest.mark.parametrize(
    "text",
    [
        "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>",
        "<local-command-stdout>Reconnected</local-command-stdout>",
        "<local-command-caveat>Caveat: the messages below</local-command-caveat>",
    ],
)
def test_slash_commands_are_not_prompts(text):
    assert kinds(prompt(1, text)) == []


def test_meta_and_compact_summaries_are_not_prompts():
    assert kinds(prompt(1, "injected", isMeta=True)) == []
    assert kinds(prompt(1, "This session is being continued", isCompactSummary=True)) == []


def test_interrupt_marker():
    facts = read_record(line(prompt(1, "[Request interrupted by user for tool use]")))
    assert [a.kind for a in facts.activity] == ["TranscriptInterrupt"] and facts.interrupt


def test_task_notification_prompt_is_a_wake_not_a_prompt():
    record = prompt(1, "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>")
    record["origin"] = {"kind": "task-notification", "producer": "session-task"}
    facts = read_record(line(record))
    assert [(a.kind, a.notification_only) for a in facts.activity] == [("TranscriptPrompt", True)]
    assert not facts.human_prompt and facts.prompt_title is None


def test_assistant_records_tool_use_then_final_response():
    tool = rec(
        "assistant",
        2,
        message={
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "rm -rf secret", "description": "x"},
                }
            ],
        },
    )
    facts = read_record(line(tool))
    assert [(a.kind, a.tool, a.tool_use_id) for a in facts.activity] == [("TranscriptToolUse", "Bash", "toolu_1")]
    assert "secret" not in repr(facts)
    done = rec(
        "assistant",
        3,
        message={"role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "Done"}]},
    )
    assert kinds(done) == ["TranscriptResponse"]
    partial = rec(
        "assistant",
        3,
        message={"role": "assistant", "stop_reason": None, "content": [{"type": "text", "text": "thinking aloud"}]},
    )
    assert kinds(partial) == []  # an older client's partial record proves no end


def test_tool_result():
    record = rec(
        "user",
        4,
        message={
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "secret output", "is_error": False}
            ],
        },
        toolUseResult={"stdout": "secret output", "stderr": ""},
    )
    facts = read_record(line(record))
    assert [(a.kind, a.tool_use_id) for a in facts.activity] == [("TranscriptToolResult", "toolu_1")]
    assert "secret" not in repr(facts)


def test_api_error_response_as_written_by_2_1_328():
    record = rec(
        "assistant",
        5,
        requestId="req_1",
        apiErrorIsTransient=False,
        error="rate_limit",
        isApiErrorMessage=True,
        apiErrorStatus=429,
        apiErrorType="rate_limit_error",
        message={
            "role": "assistant",
            "model": "<synthetic>",
            "stop_reason": "stop_sequence",
            "content": [{"type": "text", "text": "API Error: Request rejected (429)"}],
        },
    )
    facts = read_record(line(record))
    (activity,) = facts.activity
    assert (activity.kind, activity.error, activity.http_status) == ("TranscriptApiError", "rate_limit", 429)
    assert (facts.response, facts.response_error) == ("error", "rate_limit")


def test_a_refused_connection_is_a_connection_error_as_the_hook_says():
    """Claude Code 2.1 writes a refused connection as `server_error` with no status (seen against a bound port
    that never listens); its text alone names ECONNREFUSED, and the hook shim reads the same word."""
    record = rec(
        "assistant",
        5,
        error="server_error",
        isApiErrorMessage=True,
        message={
            "role": "assistant",
            "model": "<synthetic>",
            "content": [
                {
                    "type": "text",
                    "text": "API Error: Connection refused \u2014 a firewall or proxy may be blocking it (ECONNREFUSED)",
                }
            ],
        },
    )
    facts = read_record(line(record))
    (activity,) = facts.activity
    assert (activity.kind, activity.error, activity.http_status) == ("TranscriptApiError", "connection_error", None)
    assert facts.response_error == "server_error"  # the client's own code, as it wrote it
    assert error_reason(activity.error) is ErrorReason.UNREACHABLE

    with_status = dict(record, apiErrorStatus=502)  # a status came back: the service answered
    (activity,) = read_record(line(with_status)).activity
    assert (activity.error, activity.http_status) == ("server_error", 502)


def test_retry_record_is_counted_and_a_retry_not_an_error():
    record = rec(
        "system",
        6,
        subtype="api_error",
        level="error",
        retryAttempt=1,
        maxRetries=2,
        error={"status": 500, "formatted": "500 Internal server error", "connection": None},
    )
    facts = read_record(line(record))
    assert facts.retry_status == 500  # the turn goes on: a retry, never the turn's error
    assert [(a.kind, a.http_status) for a in facts.activity] == [("TranscriptRetry", 500)]


def test_turn_duration_ends_a_turn_and_compaction_is_counted():
    assert kinds(rec("system", 7, subtype="turn_duration", durationMs=10)) == ["TranscriptResponse"]
    facts = read_record(line(rec("system", 8, subtype="compact_boundary", compactMetadata={"trigger": "auto"})))
    assert facts.compaction == "auto" and facts.activity == []


def test_metadata_records():
    assert (
        read_record(
            line({"type": "custom-title", "customTitle": "My title\nsecond", "sessionId": SESSION})
        ).custom_title
        == "My title"
    )
    assert read_record(line({"type": "ai-title", "aiTitle": "AI title", "sessionId": SESSION})).ai_title == "AI title"
    assert read_record(line({"type": "summary", "summary": "Old summary", "leafUuid": "x"})).summary == "Old summary"
    assert read_record(line({"type": "agent-name", "agentName": "Named", "sessionId": SESSION})).agent_name == "Named"


def test_irrelevant_and_unknown_records_mean_nothing():
    assert read_record(b'{"type":"progress","data":{"type":"hook_progress"}}') is None
    assert read_record(b'{"type":"file-history-snapshot","snapshot":{}}') is None
    assert read_record(b'{"type":"brand-new-kind","user":"x"}') is None or kinds({"type": "brand-new-kind"}) == []
    # The client's own record of the last prompt names the session (its title) and proves no activity.
    last = read_record(line({"type": "last-prompt", "lastPrompt": "the task", "sessionId": SESSION}))
    assert (last.last_prompt, last.activity, last.human_prompt) == ("the task", [], False)


def test_spaced_json_is_read_too():
    assert kinds(json.loads(line(prompt(1, "hello")))) == ["TranscriptPrompt"]
    facts = read_record(line(prompt(1, "hello"), compact=False))
    assert [a.kind for a in facts.activity] == ["TranscriptPrompt"]


@pytest.mark.parametrize(
    "raw", [b'{"type":"user",', b'\xff\xfe{"type":"user"}', b'[{"type":"user"}]', b'7 {"type":"user"}']
)
def test_broken_lines_are_unreadable_not_fatal(raw):
    with pytest.raises(Unreadable):
        read_record(raw)


def test_odd_field_types_never_lose_the_record():
    record = prompt(1, "still a prompt", cwd=42, version=["x"], gitBranch=None, origin="weird")
    facts = read_record(line(record))
    assert [a.kind for a in facts.activity] == ["TranscriptPrompt"] and facts.cwd is None


def test_sidechain_records_are_not_the_sessions():
    assert kinds(prompt(1, "subagent prompt", isSidechain=True)) == []


def test_title_order_names_then_generated_then_summary_then_the_prompts():
    first = prompt(1, "first prompt text")
    assert summarize(first, prompt(2, "second")).title == "first prompt text"
    assert summarize(first, {"type": "summary", "summary": "S"}).title == "S"
    assert summarize(first, {"type": "summary", "summary": "S"}, {"type": "ai-title", "aiTitle": "AI"}).title == "AI"
    assert (
        summarize({"type": "custom-title", "customTitle": "Mine"}, first, {"type": "ai-title", "aiTitle": "AI"}).title
        == "Mine"
    )


def test_first_response_is_the_sessions_first_outcome():
    error = rec(
        "assistant",
        2,
        error="authentication_failed",
        isApiErrorMessage=True,
        apiErrorStatus=401,
        message={"role": "assistant", "content": []},
    )
    ok = rec("assistant", 3, message={"role": "assistant", "stop_reason": "end_turn", "content": []})
    summary = summarize(prompt(1, "hi"), error, ok)
    assert summary.first_response.outcome == "error"
    assert summary.first_response.error_code == "authentication_failed"
    assert summary.first_response.record_id == "u2"
    assert summarize(prompt(1, "hi"), ok, error).first_response.outcome == "response"
    other = dict(ok, sessionId="another-session")
    assert summarize(other).first_response is None


def test_counts_and_times():
    summary = summarize(
        prompt(1, "a"),
        rec("system", 2, subtype="api_error", error={"status": 529}),
        rec("system", 3, subtype="compact_boundary", compactMetadata={"trigger": "manual"}),
        prompt(4, "[Request interrupted by user]"),
        prompt(5, "b"),
    )
    assert (summary.prompts, summary.api_errors, summary.last_api_error_status) == (2, 1, 529)
    assert (summary.compactions, summary.last_compaction_trigger, summary.interrupts) == (1, "manual", 1)
    assert summary.last_prompt_at == summary.last_at and summary.first_at < summary.last_at
