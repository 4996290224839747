"""A conversation file, with how its client's records are parsed and where its sub-agents' files are.

Which file holds a session's conversation, and what its records mean, is its client's knowledge: the client's
face finds the file (`find_conversation`: from what the collector stored, else from the client's own layout by
the session id) and names its parser (`lunavect.clients.claude.conversation`, `lunavect.clients.codex.conversation`). This
module is what the readers (window, follow, compressed) hold of it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lunavect.conversation.parts import Part
from lunavect.core.ids import is_session_id


class Parser(Protocol):
    """A client's records as displayed parts: `sidechain` reads a sub-agent's own conversation."""

    def __call__(self, record: Any, offset: int, *, sidechain: bool = False) -> list[Part]: ...


# A conversation's records read forward, each as (its offset, the next record's, its JSON line or None for one
# skipped unread): how a conversation that is not a plain file is read.
Records = Callable[[], Iterator[tuple[int, int, bytes | None]]]


@dataclass(frozen=True)
class Source:
    """A conversation file, its client and that client's parser. `agent` names a sub-agent whose own file this is;
    `agents_folder` is where the client keeps the files of this conversation's sub-agents (`agent-<id>.jsonl`,
    as Claude Code does), None when it keeps none.

    A client that keeps a conversation in no file of its own (OpenCode: rows of one database for every session)
    gives its `records` instead, its records as JSON lines, read forward like a compressed file, and the
    `signature` that changes whenever they may have (a follower reads them again then); `path` is then the file
    that holds them, for what is said of it."""

    path: Path
    provider: str
    parser: Parser
    agent: str | None = None
    agents_folder: Path | None = None
    records: Records | None = None
    signature: Callable[[], object] | None = None

    @property
    def compressed(self) -> bool:
        """A file its client compressed once it stopped writing it (`.jsonl.zst`, as Codex does): read as a
        stream."""
        return self.path.name.endswith(".jsonl.zst")

    @property
    def streamed(self) -> bool:
        """Read forward as a stream of records (compressed, or kept in no file of its own), never backwards."""
        return self.compressed or self.records is not None

    @property
    def parse(self) -> Callable[[Any, int], list[Part]]:
        sidechain, parser = self.agent is not None, self.parser
        return lambda record, offset: parser(record, offset, sidechain=sidechain)

    def agent_source(self, agent_id: str) -> Source:
        """A sub-agent's own conversation, kept beside its session's. ValueError for an id that is no id (its
        file name is built from it), or when the client keeps no sub-agent files."""
        if not is_session_id(agent_id):
            raise ValueError(f"not an agent id: {agent_id!r}")
        if self.agents_folder is None:
            raise ValueError(f"{self.provider} keeps no sub-agent conversations")
        return Source(self.agents_folder / f"agent-{agent_id}.jsonl", self.provider, self.parser, agent_id)

    def agents(self) -> list[str]:
        """The ids of the sub-agents whose files the client keeps for this conversation, oldest first."""
        folder = self.agents_folder
        if folder is None:
            return []
        try:
            names = sorted(os.listdir(folder), key=lambda n: os.stat(folder / n).st_mtime)
        except OSError:
            return []
        found = [n[len("agent-") : -len(".jsonl")] for n in names if n.startswith("agent-") and n.endswith(".jsonl")]
        return [agent for agent in found if is_session_id(agent)]


def found_file(
    session_id: str, stored: Callable[[str], Path | None], in_layout: Callable[[str], Path | None]
) -> Path | None:
    """The file of a session whose conversation is JSON lines (compressed or not): the one the collector stored
    when it is such a file, else the one the client's own layout names. None for an id that is no id: a file
    name is built from it."""
    if not is_session_id(session_id):
        return None
    path = stored(session_id)
    if path is None or not path.name.endswith((".jsonl", ".jsonl.zst")):
        path = in_layout(session_id)
    return path


def stored_file(
    conn: sqlite3.Connection | None, paths_of: Callable[[sqlite3.Connection], Iterable[str]]
) -> Path | None:
    """The newest of the files the collector stored for a session (`paths_of`, newest first) that is still a
    file. None without a store, or one that cannot be read: each client's face then looks in its own layout."""
    if conn is None:
        return None
    try:
        for path in paths_of(conn):
            if os.path.isfile(path):
                return Path(path)
    except sqlite3.Error:
        return None
    return None
