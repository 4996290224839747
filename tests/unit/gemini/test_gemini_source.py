"""The Gemini CLI source in a collector, on chat files the real 0.61.0 wrote, laid out as it lays them out in an
isolated `~/.gemini`: every session listed without hooks, with its title, folder, state, resume command and
usage; sub-agents kept out of the rows; files read on from their cursors and forgotten once gone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from unit_support import wait_until

from lunavect.clients.gemini.source import GeminiSource
from lunavect.collector.tick import Collector
from lunavect.evidence import file_cursors
from lunavect.listing.sessions import read_sessions

SAMPLES = Path(__file__).resolve().parent / "samples"
FOLDER = "/home/u/x/work"


class Gemini:
    def __init__(self, home: Path) -> None:
        self.tmp = home / ".gemini" / "tmp"
        self.slug = self.tmp / "work"
        self.chats = self.slug / "chats"
        self.chats.mkdir(parents=True)
        (self.slug / ".project_root").write_text(FOLDER)

    def chat(self, sample: str, name: str | None = None) -> Path:
        meta = json.loads((SAMPLES / f"{sample}.jsonl").read_text().splitlines()[0])
        path = self.chats / (name or f"session-2026-12-01T17-05-{meta['sessionId'][:8]}.jsonl")
        shutil.copy(SAMPLES / f"{sample}.jsonl", path)
        return path

    @staticmethod
    def session_id(sample: str) -> str:
        return json.loads((SAMPLES / f"{sample}.jsonl").read_text().splitlines()[0])["sessionId"]


@pytest.fixture
def home(iso_env) -> Gemini:
    return Gemini(iso_env.home)


def rows(conn, now: float):
    return {row.id: row for row in read_sessions(conn)}


def test_sessions_appear_from_their_files_with_title_folder_state_resume_and_usage(iso_env, home: Gemini) -> None:
    home.chat("permission-main")
    home.chat("error-main")
    conn = iso_env.connect()
    collector = Collector(conn, sources=[GeminiSource()])
    collector.tick(now=2_000_000_000.0)
    found = rows(conn, 0)
    ok = found[f"gemini:{home.session_id('permission-main')}"]
    assert (ok.title, ok.cwd, ok.state, ok.basis) == ("make the marker", FOLDER, "ready", ["transcript"])
    assert ok.resume == f"cd {FOLDER} && gemini --resume {home.session_id('permission-main')}"
    assert ok.usage is not None and ok.usage.model == "gemini-2.5-flash" and ok.usage.context_window == 1_048_576
    failed = found[f"gemini:{home.session_id('error-main')}"]
    assert (failed.state, failed.error) == ("error", "auth")


def test_a_sub_agents_folder_is_no_session(iso_env, home: Gemini) -> None:
    home.chat("subagent-main")
    parent = home.session_id("subagent-main")
    (home.chats / parent).mkdir()
    shutil.copy(SAMPLES / "subagent-sub.jsonl", home.chats / parent / f"{home.session_id('subagent-sub')}.jsonl")
    conn = iso_env.connect()
    Collector(conn, sources=[GeminiSource()]).tick(now=2_000_000_000.0)
    assert list(rows(conn, 0)) == [f"gemini:{parent}"]


def test_a_file_that_says_it_is_a_sub_agent_is_internal(iso_env, home: Gemini) -> None:
    home.chat("subagent-sub", name="session-2026-12-01T17-05-abcdef12.jsonl")
    conn = iso_env.connect()
    collector = Collector(conn, sources=[GeminiSource()])
    collector.tick(now=2_000_000_000.0)
    assert rows(conn, 0) == {}
    assert f"gemini:{home.session_id('subagent-sub')}" in collector.internal


def test_appended_records_are_read_on_and_a_file_gone_is_forgotten(iso_env, home: Gemini) -> None:
    lines = (SAMPLES / "two-turns-main.jsonl").read_text().splitlines(keepends=True)
    second = next(i for i, line in enumerate(lines) if "second question" in line)
    path = home.chat("two-turns-main")
    path.write_text("".join(lines[:second]))
    conn = iso_env.connect()
    source = GeminiSource()
    collector = Collector(conn, sources=[source])
    collector.tick(now=2_000_000_000.0)
    (row,) = rows(conn, 0).values()
    assert row.state == "ready" and row.title == "first question"
    stored = file_cursors.load(conn, "gemini")[str(path)]
    path.write_text("".join(lines[: second + 1]))  # the second prompt, not yet answered

    def read_on() -> bool:  # the source reads what the operating system told it, a moment after the write
        collector.tick(now=2_000_000_001.0)
        return file_cursors.load(conn, "gemini")[str(path)].cursor != stored.cursor

    wait_until(read_on, "the appended prompt read", timeout=10)
    (row,) = rows(conn, 0).values()
    assert row.state == "unknown"  # working, but its prompt is older than the ten minutes a file's word lasts
    assert file_cursors.load(conn, "gemini")[str(path)].cursor != stored.cursor
    path.unlink()
    source._swept_at = None  # the next poll is a sweep
    collector.tick(now=2_000_000_002.0)
    assert str(path) not in file_cursors.load(conn, "gemini")
    assert conn.execute("SELECT COUNT(*) FROM usage_ledger WHERE path = ?", (str(path),)).fetchone()[0] == 0


def test_a_bad_file_is_set_aside_and_the_others_still_read(iso_env, home: Gemini, monkeypatch) -> None:
    from lunavect.clients.gemini import chat_read

    good = home.chat("permission-main")
    bad = home.chat("error-main")
    real = chat_read.read_chat

    def failing(path, *args, **kwargs):
        if path == str(bad):
            raise RuntimeError("boom")
        return real(path, *args, **kwargs)

    monkeypatch.setattr("lunavect.clients.gemini.source.read_chat", failing)
    conn = iso_env.connect()
    source = GeminiSource()
    Collector(conn, sources=[source]).tick(now=2_000_000_000.0)
    assert list(rows(conn, 0)) == [f"gemini:{home.session_id('permission-main')}"]
    assert source.quarantine.holds(str(bad)) and not source.quarantine.holds(str(good))


def test_lunavect_show_reads_the_conversation_from_the_chat_file(iso_env, home: Gemini) -> None:
    home.chat("permission-main")
    conn = iso_env.connect()
    Collector(conn, sources=[GeminiSource()]).tick(now=2_000_000_000.0)
    out = iso_env.cli("show", f"gemini:{home.session_id('permission-main')}").stdout
    assert "make the marker" in out and "touch marker" in out and "Marker made" in out
    assert out.count("touch marker") == 1  # the message written twice shows once
    assert "session_context" not in out
