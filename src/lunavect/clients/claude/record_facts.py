"""What lunavect takes from one line of a Claude Code transcript (records.py reads it): kept apart from the
reader so the few modules that fold facts (summary.py, latest.py, glance.py) name their shape without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lunavect.clients.claude.agents import Observation
from lunavect.clients.claude.usage import MessageUsage


@dataclass
class Activity:
    """One piece of activity a record proves: a kind the rules understand and its few typed details."""

    kind: str
    tool: str | None = None
    tool_use_id: str | None = None
    error: str | None = None
    http_status: int | None = None
    notification_only: bool = False


@dataclass(init=False)
class RecordFacts:
    """Everything lunavect takes from one line. Metadata and activity are kept apart: a title or a folder
    never proves that a session works. One is made per record of every whole read: its constructor sets only what
    each record has, the other fields keep their class defaults until a reader sets them."""

    kind: str
    place: int = 0
    at: float | None = None
    uuid: str | None = None
    session_id: str | None = None
    activity: list[Activity] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    # Metadata.
    cwd: str | None = None
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    session_kind: str | None = None
    custom_title: str | None = None
    ai_title: str | None = None
    agent_name: str | None = None
    summary: str | None = None
    # The record's part in the title (titles.py): as a prompt, as the client's own last prompt, and a slash
    # command's name as the last fallback.
    prompt_title: str | None = None
    last_prompt: str | None = None
    command_title: str | None = None
    # What happened, for the per-file summary.
    human_prompt: bool = False
    response: str | None = None  # "response" or "error" for an assistant record of the session
    response_error: str | None = None
    retry_status: int | None = None
    compaction: str | None = None  # the trigger of a compaction boundary
    interrupt: bool = False
    usage: MessageUsage | None = None  # an assistant record's token counts (claude/usage.py)

    def __init__(
        self, kind: str, place: int = 0, at: float | None = None, uuid: str | None = None, session_id: str | None = None
    ) -> None:
        self.kind, self.place, self.at, self.uuid, self.session_id = kind, place, at, uuid, session_id
        self.activity, self.observations = [], []
