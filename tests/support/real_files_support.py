"""The real transcripts and rollouts other people's clients wrote (../shared/data beside the checkout, never
edited), and an installation that reads one real Claude transcript written in the pieces a test chooses: what
the tests of reading real files, and of the usage figures taken from them, share."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from unit_support import shared_data_dir, transcript_summary

from lunavect import store
from lunavect.clients.claude.files_source import ClaudeFilesSource, background_tasks
from lunavect.collector.tick import Collector
from lunavect.core.rules import decide

CLAUDE_DATA = shared_data_dir() / "claude"
# Every real session's main transcript (a subagent's sits a folder deeper).
MAIN_FILES = sorted(p for p in CLAUDE_DATA.glob("*/*.jsonl"))
CODEX_FILES = sorted((shared_data_dir() / "codex").rglob("rollout-*.jsonl"))
NOW = 2_000_000_000.0


def session_of(path: Path) -> str:
    with open(path, "rb") as f:
        for line in f:
            session = json.loads(line).get("sessionId")
            if session:
                return session
    raise AssertionError(f"no session id in {path}")


class Feeder:
    """One isolated installation whose Claude folder gets one real transcript, written in given pieces."""

    def __init__(self, root: Path, source: Path, name: str) -> None:
        self.session = session_of(source)
        self.config = root / f"claude-{name}"
        project = self.config / "projects" / "-home-USER-project"
        project.mkdir(parents=True)
        self.path = project / f"{self.session}.jsonl"
        self.path.write_bytes(b"")
        self.conn = store.connect(root / f"lunavect-{name}" / "store.sqlite3")
        self.collector = Collector(self.conn, sources=[ClaudeFilesSource(config_dir=self.config)])

    def write(self, piece: bytes) -> None:
        with open(self.path, "ab") as f:
            f.write(piece)
        self.collector.poll_sources(now=NOW)

    def answer(self):
        self.collector.poll_sources(now=NOW)
        summary = transcript_summary(self.conn, self.session)
        # What was handed over when, and whether a glance came first, are the reader's bookkeeping.
        summary = msgspec.structs.replace(summary, sent_meta=None, sent_background=None, glanced_at=None)
        facts = self.collector._facts[f"claude:{self.session}"]
        decision = decide(facts, NOW)
        return summary, background_tasks(self.conn, self.session), decision, (facts.title, facts.cwd, facts.branch)

    def close(self) -> None:
        self.conn.close()
