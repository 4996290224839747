"""Usage is numbers only: reading the real transcripts and rollouts of ../shared/data (their usage, limits,
models) leaves none of the assistant's text, tool inputs or tool output in the store, its WAL included.

Each such text of a Claude transcript is looked for (a 24-character piece of it, from its middle) in the raw
bytes lunavect wrote; the person's prompts are left out, since a session's title may be its first prompt's
line. The published rollouts hold placeholders instead of text, so a copy gets words of our own in their place.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from real_files_support import CODEX_FILES, MAIN_FILES, NOW, Feeder

from lunavect import store
from lunavect.clients.codex.source import CodexSource
from lunavect.collector.tick import Collector
from lunavect.usage import ledger

PIECE = 24


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _pieces(texts: Iterator[str]) -> set[str]:
    """A piece from the middle of each long enough text (ids and short words could match by chance), but
    not one that holds a path: the session's folder is kept, and a text may name it."""
    out = set()
    for text in texts:
        text = text.strip()
        middle = len(text) // 2
        piece = text[middle - PIECE // 2 : middle + PIECE // 2]
        if len(text) >= 3 * PIECE and " " in text and "/" not in piece:
            out.add(piece)
    return out


def _claude_private(path: Path) -> set[str]:
    """The assistant's texts and tool calls, and the tools' results, of one transcript."""
    found: list[str] = []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    for record in records:
        content = (record.get("message") or {}).get("content") if isinstance(record.get("message"), dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and (record.get("type") == "assistant" or block.get("type") == "tool_result"):
                found.extend(_strings({k: v for k, v in block.items() if k not in ("type", "id", "tool_use_id")}))
    return _pieces(iter(found))


def _codex_with_text(source: Path, target: Path) -> set[str]:
    """The rollout with its redacted placeholders (the published files hold no text) replaced by words of
    our own where the agent speaks, reasons or calls a tool, and where a tool answers; returns those words."""
    words: set[str] = set()

    def private(kind: str) -> str:
        text = f"private {kind} words number {len(words):05d} that lunavect must never keep"
        words.add(text)
        return text

    lines = []
    for line in source.read_bytes().splitlines():
        record = json.loads(line)
        payload = record.get("payload") or {}
        kind = payload.get("type")
        if record.get("type") == "response_item":
            if kind == "message" and payload.get("role") == "assistant":
                for block in payload.get("content") or []:
                    block["text"] = private("reply")
            elif kind in ("function_call", "custom_tool_call"):
                payload["arguments" if kind == "function_call" else "input"] = private("call")
            elif kind in ("function_call_output", "custom_tool_call_output"):
                payload["output"] = private("output")
        elif record.get("type") == "event_msg" and kind == "agent_message":
            payload["message"] = private("message")
        elif record.get("type") == "event_msg" and kind == "agent_reasoning":
            payload["text"] = private("reasoning")
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n")
    return words


def _assert_absent(folder: Path, pieces: set[str]) -> None:
    written = [p for p in folder.rglob("*") if p.is_file()]
    assert any(p.name.endswith("-wal") and p.stat().st_size for p in written)  # the writes are still there
    for path in written:
        data = path.read_bytes()
        for piece in pieces:
            assert piece.encode() not in data, f"{piece!r} found in {path.name}"


@pytest.mark.skipif(not MAIN_FILES, reason="the shared real transcripts are not there")
@pytest.mark.parametrize("source", MAIN_FILES, ids=lambda p: p.name)
def test_claude_usage_keeps_no_text(tmp_path: Path, source: Path) -> None:
    pieces = _claude_private(source)
    assert pieces
    feeder = Feeder(tmp_path, source, "whole")
    try:
        feeder.write(source.read_bytes())
        feeder.answer()
        assert not ledger.sessions(feeder.conn)[f"claude:{feeder.session}"].tokens.empty
        _assert_absent(tmp_path / "lunavect-whole", pieces)
    finally:
        feeder.close()


@pytest.mark.skipif(not CODEX_FILES, reason="the shared real rollouts are not there")
@pytest.mark.parametrize("source", CODEX_FILES, ids=lambda p: p.name[-20:])
def test_codex_usage_keeps_no_text(tmp_path: Path, source: Path) -> None:
    day = tmp_path / "codex" / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    pieces = _codex_with_text(source, day / source.name)
    assert pieces
    conn = store.connect(tmp_path / "lv" / "store.sqlite3")
    env = {"LUNAVECT_CODEX": str(tmp_path / "no-codex"), "PATH": "/nonexistent", "HOME": str(tmp_path)}
    codex_source = CodexSource(codex_home=tmp_path / "codex", env=env)
    try:
        Collector(conn, spool_dir=tmp_path / "lv" / "spool", sources=[codex_source]).poll_sources(NOW)
        assert any(not u.tokens.empty for u in ledger.sessions(conn).values())
        _assert_absent(tmp_path / "lv", pieces)
    finally:
        codex_source.close()
        conn.close()
