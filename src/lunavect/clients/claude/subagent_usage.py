"""Sub-agents' tokens from their own transcripts (`<session>/subagents/agent-*.jsonl`, Claude Code 2.1 and later).

The session's reader discovers only main transcripts; a sub-agent's file is read here, for its usage only,
each time its session's transcript is read (the parent writes while its agents run, and the agent's result
at their end, so the final figures always arrive). Each file is read incrementally with its own cursor, kept
in the parent's summary: a parent read again from its start starts its agents' files again too, and their
history rows, kept under the parent's path, are forgotten with it.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.clients.claude.transcript import AppendedLines, Cursor
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger

# At most this many agent files, and bytes of them per read: a session with runaway agents stays bounded.
MAX_FILES = 200
BUDGET_BYTES = 16 << 20


class AgentRead(msgspec.Struct):
    """Where one agent file's read stopped, and the message it counted last (its records span lines)."""

    cursor: Cursor = msgspec.field(default_factory=Cursor)
    last_message_id: str | None = None
    last_tokens: Tokens | None = None


def agent_files(transcript: str) -> list[str]:
    folder = Path(transcript[: -len(".jsonl")]) / "subagents"
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("agent-") and n.endswith(".jsonl"))
    except OSError:
        return []
    return [str(folder / n) for n in names[:MAX_FILES]]


def read_agents(transcript: str, agents: dict[str, AgentRead], now: float, deltas: ledger.Deltas) -> None:
    """Read what the session's agent files appended since `agents` says, adding their tokens to `deltas`."""
    budget = BUDGET_BYTES
    for path in agent_files(transcript):
        name = os.path.basename(path)
        state = agents.get(name) or AgentRead()
        try:
            st = os.stat(path)
        except OSError:
            continue
        if state.cursor.unchanged(st) or budget <= 0:
            continue
        try:
            with AppendedLines(path, state.cursor, budget) as lines:
                if lines.restarted:
                    state = AgentRead()  # rewritten: its tokens count again from its start (rare; kept simple)
                for offset, line in lines:
                    if line is None or b'"usage"' not in line:
                        continue
                    try:
                        facts = read_record(line, offset)
                    except Unreadable:
                        continue
                    usage = facts.usage if facts is not None else None
                    if usage is None:
                        continue
                    same = usage.message_id is not None and usage.message_id == state.last_message_id
                    before = state.last_tokens if same and state.last_tokens is not None else Tokens()
                    state.last_message_id, state.last_tokens = usage.message_id, usage.tokens
                    added = usage.tokens.minus(before)
                    if not added.empty:
                        assert facts is not None
                        deltas.add(ledger.quarter_of(facts.at, now), usage.model, True, added)
                state.cursor = lines.cursor()
                budget -= lines.end - lines.start
        except OSError:
            continue
        agents[name] = state
