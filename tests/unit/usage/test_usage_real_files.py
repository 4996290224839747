"""Usage from real transcripts and rollouts (../shared/data, never edited): lunavect's totals equal the ones
computed here independently, by summing the clients' own fields with plain json (Claude: the last record of
each message id, as the client's reply finished; Codex: the last `total_token_usage`), whether the file is
read whole or as it grows in random pieces."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from real_files_support import CODEX_FILES, MAIN_FILES, NOW, Feeder
from unit_support import wait_until

from lunavect import store
from lunavect.clients.codex.source import CodexSource
from lunavect.collector.tick import Collector
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger, limits

pytestmark = pytest.mark.skipif(not MAIN_FILES, reason="the shared real transcripts are not there")


def expected_claude(path: Path) -> tuple[Tokens, Tokens, str | None]:
    """(all tokens, the sub-agents' part, the main conversation's last model), summed by hand."""
    messages: dict[str, tuple[dict, bool]] = {}
    model = None
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if record.get("type") != "assistant" or record.get("isApiErrorMessage") or not isinstance(message, dict):
            continue
        if "usage" not in message:
            continue
        messages[message["id"]] = (message["usage"], bool(record.get("isSidechain")))
        if not record.get("isSidechain") and message.get("model") != "<synthetic>":
            model = message.get("model")
    total, sub = Tokens(), Tokens()
    for usage, sidechain in messages.values():
        tokens = Tokens(
            usage.get("input_tokens", 0),
            usage.get("output_tokens", 0),
            usage.get("cache_read_input_tokens", 0),
            usage.get("cache_creation_input_tokens", 0),
            (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0),
        )
        total = total.plus(tokens)
        if sidechain:
            sub = sub.plus(tokens)
    return total, sub, model


def whole_and_pieces(source: Path) -> list[tuple[str, list[bytes]]]:
    """The file whole, and cut at 12 random places (a client writing while lunavect reads)."""
    data = source.read_bytes()
    cuts = sorted(random.Random(source.name).sample(range(1, len(data)), 12))
    return [("whole", [data]), ("pieces", [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)])]


@pytest.mark.parametrize("source", MAIN_FILES, ids=lambda p: p.name)
def test_claude_totals_whole_and_in_pieces(tmp_path: Path, source: Path) -> None:
    total, sub, model = expected_claude(source)
    assert not total.empty
    agents = sorted((source.parent / source.stem / "subagents").glob("agent-*.jsonl"))
    for agent in agents:  # a sub-agent's own transcript: its tokens are the sub-agents' and the session's
        agent_total, agent_sub, _ = expected_claude(agent)
        assert agent_total == agent_sub
        total, sub = total.plus(agent_total), sub.plus(agent_sub)
    assert not sub.empty or not agents
    for name, pieces in whole_and_pieces(source):
        feeder = Feeder(tmp_path, source, name)
        if agents:
            folder = feeder.path.parent / feeder.session / "subagents"
            folder.mkdir(parents=True)
            for agent in agents:
                shutil.copyfile(agent, folder / agent.name)
        try:
            for piece in pieces:
                feeder.write(piece)
            feeder.answer()  # a large file is glanced at first and read whole on a later tick
            usage = ledger.sessions(feeder.conn)[f"claude:{feeder.session}"]
        finally:
            feeder.close()
        assert (usage.tokens, usage.subagents, usage.model) == (total, sub, model), name


def expected_codex(path: Path) -> tuple[Tokens, int | None, int | None, str | None, dict | None]:
    """(totals, last request's size, window, model, latest rate limits) from the last records, by hand."""
    info = limits = model = None
    for line in path.read_bytes().splitlines():
        record = json.loads(line)
        payload = record.get("payload") or {}
        if record.get("type") == "turn_context":
            model = payload.get("model")
        if record.get("type") == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info") or info
            limits = payload.get("rate_limits") or limits
    assert info is not None
    total = info["total_token_usage"]
    tokens = Tokens(
        total["input_tokens"] - total["cached_input_tokens"], total["output_tokens"], total["cached_input_tokens"]
    )
    return tokens, info["last_token_usage"]["total_tokens"], info["model_context_window"], model, limits


def _poll_until_read(collector: Collector, codex_source: CodexSource, rollout: Path) -> None:
    """Poll until the source has read the rollout's whole records: a piece's write is told by the operating system
    a moment after it happens, and the source reads what it was told (or, while its watch starts, what it
    finds), so one poll right after a write may come before the telling."""
    size = rollout.read_bytes().rfind(b"\n") + 1  # a piece may end inside a record: its head waits for the rest

    def read_whole() -> bool:
        collector.poll_sources(NOW)
        known = (codex_source.rollouts or {}).get(str(rollout))
        return known is not None and known.cursor.offset >= size

    wait_until(read_whole, f"{rollout.name} read to byte {size}", timeout=10)


@pytest.mark.parametrize("source", CODEX_FILES, ids=lambda p: p.name[-20:])
def test_codex_totals_whole_and_in_pieces(tmp_path: Path, source: Path) -> None:
    tokens, context, window, model, rate = expected_codex(source)
    for name, pieces in whole_and_pieces(source):
        codex = tmp_path / name / "codex"
        day = codex / "sessions" / "2026" / "02" / "23"
        day.mkdir(parents=True)
        conn = store.connect(tmp_path / name / "store.sqlite3")
        env = {"LUNAVECT_CODEX": str(tmp_path / "no-codex"), "PATH": "/nonexistent", "HOME": str(tmp_path)}
        codex_source = CodexSource(codex_home=codex, env=env)
        collector = Collector(conn, spool_dir=tmp_path / name / "spool", sources=[codex_source])
        try:
            rollout = day / source.name
            for piece in pieces:
                with open(rollout, "ab") as f:
                    f.write(piece)
                _poll_until_read(collector, codex_source, rollout)
            thread = source.name[-len("019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl") : -len(".jsonl")]
            usage = ledger.sessions(conn)[f"codex:{thread}"]
            account = limits.read(conn, now=NOW)[0]
        finally:
            codex_source.close()
            conn.close()
        assert (usage.tokens, usage.context, usage.context_window, usage.model) == (tokens, context, window, model), (
            name
        )
        assert [(w.name, w.used_percent, w.window_minutes, w.resets_at, w.stale) for w in account.windows] == [
            (side, rate[side]["used_percent"], rate[side]["window_minutes"], rate[side]["resets_at"], True)
            for side in ("primary", "secondary")
        ]


@pytest.mark.parametrize("source", CODEX_FILES, ids=lambda p: p.name[-20:])
def test_codex_totals_of_a_compressed_rollout(tmp_path: Path, source: Path) -> None:
    from lunavect.files.zstd import compress

    tokens, context, window, model, _rate = expected_codex(source)
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    (day / (source.name + ".zst")).write_bytes(compress(source.read_bytes()))
    conn = store.connect(tmp_path / "store.sqlite3")
    env = {"LUNAVECT_CODEX": str(tmp_path / "no-codex"), "PATH": "/nonexistent", "HOME": str(tmp_path)}
    codex_source = CodexSource(codex_home=codex, env=env)
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[codex_source])
    try:
        for _ in range(3):  # read once; later polls find it unchanged and count nothing again
            collector.poll_sources(NOW)
        thread = source.name[-len("019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl") : -len(".jsonl")]
        usage = ledger.sessions(conn)[f"codex:{thread}"]
    finally:
        codex_source.close()
        conn.close()
    assert (usage.tokens, usage.context, usage.context_window, usage.model) == (tokens, context, window, model)
