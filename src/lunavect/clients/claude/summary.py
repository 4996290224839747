"""What one transcript says about its session as a whole, kept between reads.

The summary grows by counts and latest values only, never by records, so it stays small however long the
transcript gets; it is stored with the file's cursor. Its title is the one the client's resume picker shows
(titles.py): a name, the generated title, an old-style summary, the last prompt as the client recorded it, the
first prompt, and last the first slash command's name.
"""

from __future__ import annotations

import msgspec

from lunavect.clients.claude.record_facts import RecordFacts
from lunavect.clients.claude.subagent_usage import AgentRead
from lunavect.clients.claude.usage import MessageUsage
from lunavect.core.tokens import Tokens


class FirstResponse(msgspec.Struct, frozen=True):
    """The outcome of the session's first request: a response, or an API error with its code.

    A live terminal is not evidence that a request could run; this is.
    """

    outcome: str  # "response" | "error"
    at: float | None = None
    record_id: str | None = None
    error_code: str | None = None


class TranscriptSummary(msgspec.Struct, omit_defaults=True):
    session_id: str
    custom_title: str | None = None
    agent_name: str | None = None
    ai_title: str | None = None
    summary: str | None = None
    first_prompt: str | None = None
    last_prompt: str | None = None
    first_command: str | None = None
    cwd: str | None = None
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    session_kind: str | None = None
    first_at: float | None = None
    last_at: float | None = None
    first_response: FirstResponse | None = None
    prompts: int = 0
    responses: int = 0
    api_errors: int = 0
    last_api_error_status: int | None = None
    last_api_error_at: float | None = None
    last_prompt_at: float | None = None
    compactions: int = 0
    last_compaction_at: float | None = None
    last_compaction_trigger: str | None = None
    interrupts: int = 0
    unreadable: int = 0
    too_long: int = 0
    observations: int = 0
    # Usage (claude/usage.py): the latest model of the main conversation, the size of its last request (None
    # after a compaction until the next one), and the last message counted with what it counted.
    model: str | None = None
    context: int | None = None
    last_message_id: str | None = None
    last_message_tokens: Tokens | None = None
    # Sub-agents' own transcripts, read for their usage (claude/subagent_usage.py), by file name.
    agents: dict[str, AgentRead] = {}
    # What was last handed to the collector, so unchanged metadata is not sent again.
    sent_meta: str | None = None
    sent_background: str | None = None
    # A glance listed the session before this whole read: its activity up to this time was handed over then.
    glanced_at: float | None = None

    @property
    def title(self) -> str | None:
        return (
            self.agent_name
            or self.custom_title
            or self.ai_title
            or self.summary
            or self.last_prompt
            or self.first_prompt
            or self.first_command
        )


def take(summary: TranscriptSummary, facts: RecordFacts) -> None:
    """Fold one record's facts into the file's summary (in file order). Written out field by field: it runs
    for every record of a whole read, so it is on the path that decides the read's throughput."""
    at = facts.at
    if at is not None:
        if summary.first_at is None or at < summary.first_at:
            summary.first_at = at
        if summary.last_at is None or at > summary.last_at:
            summary.last_at = at
    if facts.cwd:
        summary.cwd = facts.cwd
    if facts.branch:
        summary.branch = facts.branch
    if facts.version:
        summary.version = facts.version
    if facts.entrypoint:
        summary.entrypoint = facts.entrypoint
    if facts.session_kind:
        summary.session_kind = facts.session_kind
    if facts.custom_title:
        summary.custom_title = facts.custom_title
    if facts.agent_name:
        summary.agent_name = facts.agent_name
    if facts.ai_title:
        summary.ai_title = facts.ai_title
    if facts.summary:
        summary.summary = facts.summary
    if facts.human_prompt:
        summary.prompts += 1
        summary.last_prompt_at = at if at is not None else summary.last_prompt_at
    if summary.first_prompt is None and facts.prompt_title:
        summary.first_prompt = facts.prompt_title  # a prompt, a shell command, a custom command with arguments
    if summary.first_command is None and facts.command_title:
        summary.first_command = facts.command_title
    if facts.last_prompt:
        summary.last_prompt = facts.last_prompt
    if facts.response is not None:
        own = facts.session_id is None or facts.session_id == summary.session_id
        if summary.first_response is None and own:
            summary.first_response = FirstResponse(
                outcome=facts.response, at=at, record_id=facts.uuid, error_code=facts.response_error
            )
    if facts.retry_status is not None:
        summary.api_errors += 1
        summary.last_api_error_status = facts.retry_status or None
        summary.last_api_error_at = at
    for activity in facts.activity:
        if activity.kind == "TranscriptResponse":
            summary.responses += 1
        elif activity.kind == "TranscriptApiError":
            summary.api_errors += 1
            summary.last_api_error_status = activity.http_status
            summary.last_api_error_at = at
    if facts.compaction is not None:
        summary.compactions += 1
        summary.last_compaction_at = at
        summary.last_compaction_trigger = facts.compaction
    if facts.interrupt:
        summary.interrupts += 1
    if facts.observations:
        summary.observations += len(facts.observations)


def take_usage(summary: TranscriptSummary, facts: RecordFacts) -> Tokens | None:
    """Fold one record's usage into the summary; the tokens it adds to the session's count (None: none).

    A record of the message counted last replaces that message's contribution (its counts grow while the
    reply streams); any other message is new. The difference is what the history gains.
    """
    if facts.compaction is not None:
        summary.context = None  # the conversation was summarised: its old size no longer holds
    usage = facts.usage
    if usage is None:
        return None
    return take_message_usage(summary, usage)


def take_message_usage(summary: TranscriptSummary, usage: MessageUsage) -> Tokens | None:
    """`take_usage` of a record that is no compaction boundary: its message's counts."""
    same = usage.message_id is not None and usage.message_id == summary.last_message_id
    before = summary.last_message_tokens if same and summary.last_message_tokens is not None else Tokens()
    summary.last_message_id = usage.message_id
    summary.last_message_tokens = usage.tokens
    if not usage.subagent:
        if usage.model is not None:
            summary.model = usage.model
        summary.context = usage.tokens.prompt_size or summary.context
    delta = usage.tokens.minus(before)
    return None if delta.empty else delta
