"""The Gemini CLI source in a collector, on chat files the real 0.61.0 wrote, laid out as it lays them out in an
isolated `~/.gemini`: every session listed without hooks, with its title, folder, state, resume command and
usage; sub-agents kept out of the rows; files read on from their cursors and forgotten once gone."""

from __future__ import annotations

import json
import os
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


@pytest.mark.process
def test_lunavect_show_reads_the_conversation_from_the_chat_file(iso_env, home: Gemini) -> None:
    home.chat("permission-main")
    conn = iso_env.connect()
    Collector(conn, sources=[GeminiSource()]).tick(now=2_000_000_000.0)
    out = iso_env.cli("show", f"gemini:{home.session_id('permission-main')}").stdout
    assert "make the marker" in out and "touch marker" in out and "Marker made" in out
    assert out.count("touch marker") == 1  # the message written twice shows once
    assert "session_context" not in out


def legacy_chat(home: Gemini, sample: str, mtime: float) -> Path:
    """The session of a real 0.61.0 JSONL sample as Gemini CLI before 0.39 kept it: one JSON object, written
    whole (indented) at each change, each message once in its latest form, its title in `summary` if it had one."""
    lines = [json.loads(line) for line in (SAMPLES / f"{sample}.jsonl").read_text().splitlines() if line.strip()]
    meta, messages = lines[0], {}
    for line in lines[1:]:
        if "$set" in line:
            for message in line["$set"].get("messages", []):
                messages[message["id"]] = message
        elif "id" in line:
            messages[line["id"]] = line
    chat = {**meta, "lastUpdated": meta["startTime"], "messages": list(messages.values())}
    chat.pop("kind")
    path = home.chats / f"session-2025-06-01T10-00-{meta['sessionId'][:8]}.json"
    path.write_text(json.dumps(chat, indent=2))
    os.utime(path, (mtime, mtime))
    return path


def test_an_older_whole_file_chat_is_listed_as_history_with_its_title_folder_and_tokens(iso_env, home) -> None:
    """Gemini CLI before 0.39 wrote `session-*.json`, one JSON object: the session is listed from it as from its
    JSONL (title, folder, usage), as history only, never a state of now."""
    jsonl = home.chat("permission-main")
    conn = iso_env.connect()
    Collector(conn, sources=[GeminiSource()]).tick(now=2_000_000_000.0)
    (expected,) = read_sessions(conn)
    jsonl.unlink()
    conn.close()
    for path in iso_env.home.glob("**/*.sqlite*"):
        path.unlink()

    path = legacy_chat(home, "permission-main", mtime=1_999_000_000.0)
    conn = iso_env.connect()
    Collector(conn, sources=[GeminiSource()]).tick(now=2_000_000_000.0)
    (row,) = read_sessions(conn)
    assert (row.id, row.title, row.cwd, row.state, row.open) == (expected.id, expected.title, FOLDER, "ready", False)
    assert row.usage is not None and expected.usage is not None
    assert (row.usage.model, row.usage.tokens) == (expected.usage.model, expected.usage.tokens)
    assert file_cursors.paths_of(conn, "gemini", row.session_id) == [str(path)]
    from lunavect.clients.gemini.conversation import find_conversation

    assert find_conversation(row.session_id, conn) is None  # history only: its messages are not shown


def test_an_older_chat_still_changing_waits_and_one_rewritten_as_jsonl_is_read_from_that(iso_env, home) -> None:
    now = 2_000_000_000.0
    recent = legacy_chat(home, "permission-main", mtime=now - 60)  # an older client writing it now
    conn = iso_env.connect()
    collector = Collector(conn, sources=[GeminiSource()])
    collector.tick(now=now)
    assert read_sessions(conn) == []
    os.utime(recent, (now - 3600, now - 3600))
    collector.tick(now=now + 40)  # the next sweep finds it quiet
    assert [row.title for row in read_sessions(conn)] == ["make the marker"]

    two = legacy_chat(home, "two-turns-main", mtime=now - 3600)
    shutil.copy(SAMPLES / "two-turns-main.jsonl", Path(str(two) + "l"))  # resumed: rewritten as .jsonl
    collector.tick(now=now + 80)
    sid = Gemini.session_id("two-turns-main")
    assert file_cursors.paths_of(conn, "gemini", sid) == [str(two) + "l"]


def test_an_older_chat_that_is_no_chat_is_set_aside_and_the_others_read(iso_env, home) -> None:
    now = 2_000_000_000.0
    bad = home.chats / "session-2025-06-01T10-00-deadbeef.json"
    bad.write_text('{"sessionId": ' + "[" * 5000 + "]" * 5000 + "}")
    os.utime(bad, (now - 3600, now - 3600))
    home.chat("error-main")
    source = GeminiSource()
    conn = iso_env.connect()
    Collector(conn, sources=[source]).tick(now=now)
    assert [row.state for row in read_sessions(conn)] == ["error"]
    assert source.quarantine.holds(str(bad))
