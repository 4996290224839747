"""Which file a conversation is read from, and how its records are parsed.

The file is found from what the collector stored (the transcript or rollout path its readers keep a cursor
for), else from the client's own layout by the session id: a Claude transcript is
`projects/<folder>/<id>.jsonl`, a Codex rollout `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lunavect import paths
from lunavect.conversation.claude_parts import claude_parts
from lunavect.conversation.codex_parts import codex_parts
from lunavect.conversation.parts import Part
from lunavect.core.ids import is_session_id


@dataclass(frozen=True)
class Source:
    """A conversation file and its client. `agent` names a Claude sub-agent whose own transcript this is."""

    path: Path
    provider: str
    agent: str | None = None

    @property
    def compressed(self) -> bool:
        """A Codex rollout Codex compressed once it stopped writing it (`.jsonl.zst`): read as a stream."""
        return self.path.name.endswith(".jsonl.zst")

    @property
    def parse(self) -> Callable[[Any, int], list[Part]]:
        if self.provider == "codex":
            return codex_parts
        sidechain = self.agent is not None
        return lambda record, offset: claude_parts(record, offset, sidechain=sidechain)

    def agent_source(self, agent_id: str) -> Source:
        """A Claude sub-agent's own transcript, kept beside its session's. ValueError for an id that is no id
        (its file name is built from it)."""
        if not is_session_id(agent_id):
            raise ValueError(f"not an agent id: {agent_id!r}")
        folder = self.path.with_suffix("")
        return Source(folder / "subagents" / f"agent-{agent_id}.jsonl", self.provider, agent_id)

    def agents(self) -> list[str]:
        """The ids of the sub-agents this Claude session's transcript folder holds."""
        folder = self.path.with_suffix("") / "subagents"
        try:
            names = sorted(os.listdir(folder), key=lambda n: os.stat(folder / n).st_mtime)
        except OSError:
            return []
        found = [n[len("agent-") : -len(".jsonl")] for n in names if n.startswith("agent-") and n.endswith(".jsonl")]
        return [agent for agent in found if is_session_id(agent)]


def _stored(conn: sqlite3.Connection | None, provider: str, session_id: str) -> Path | None:
    if conn is None:
        return None
    table, column = ("claude_transcript", "session_id") if provider == "claude" else ("codex_rollout", "thread_id")
    try:
        rows = conn.execute(f"SELECT path FROM {table} WHERE {column} = ? ORDER BY updated DESC", (session_id,))
        for (path,) in rows:
            if os.path.isfile(path):
                return Path(path)
    except sqlite3.Error:
        return None
    return None


def _claude_file(session_id: str) -> Path | None:
    projects = paths.claude_config_dir() / "projects"
    try:
        folders = list(os.scandir(projects))
    except OSError:
        return None
    for folder in folders:
        candidate = Path(folder.path) / f"{session_id}.jsonl"
        if candidate.is_file():
            return candidate
    return None


def _codex_file(session_id: str) -> Path | None:
    home = paths.codex_home()
    for top in ("sessions", "archived_sessions"):
        found = sorted((home / top).rglob(f"rollout-*{session_id}.jsonl")) or sorted(
            (home / top).rglob(f"rollout-*{session_id}.jsonl.zst")
        )
        if found:
            return found[-1]
    return None


def find_source(provider: str, session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The file a session's conversation is read from, or None when this machine holds none (or `session_id`
    is no id: the client's layout is searched by building a file name and a pattern from it)."""
    if not is_session_id(session_id):
        return None
    path = _stored(conn, provider, session_id)
    if path is None or not path.name.endswith((".jsonl", ".jsonl.zst")):
        path = _claude_file(session_id) if provider == "claude" else _codex_file(session_id)
    return Source(path, provider) if path is not None else None
