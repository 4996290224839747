"""Codex usage, exact: each of the five ways real rollouts were counted wrong, proven on a real rollout of
shared/data (kept as published; each case is a copy changed here in the one way the case needs) against the
figures summed by hand from the same file with plain json."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import uuid
import zoneinfo
from collections.abc import Iterator
from pathlib import Path

import pytest
from real_files_support import CODEX_FILES

from lunavect import store
from lunavect.clients.codex.rollout_read import QUIET_S, Rollout, read_rollout, save_rollout
from lunavect.core.tokens import Tokens
from lunavect.evidence.sources import Batch
from lunavect.listing.names import names
from lunavect.usage import ledger, report

pytestmark = pytest.mark.skipif(not CODEX_FILES, reason="the shared real rollouts are not there")

# The real rollout with the most requests (573 token_count events, half of them repeating the totals before).
SOURCE = max(CODEX_FILES, key=lambda p: p.stat().st_size) if CODEX_FILES else Path()
THREAD_LEN = len("019c8a4c-ed82-79a1-aa28-7738fc5ab61a")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def write(path: Path, recs: list[dict], *, newline_at_end: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(json.dumps(r, separators=(",", ":")) for r in recs)
    path.write_text(text + ("\n" if newline_at_end else ""))
    return path


def is_count(record: dict) -> bool:
    payload = record.get("payload") or {}
    return record.get("type") == "event_msg" and payload.get("type") == "token_count" and bool(payload.get("info"))


def tokens_of(total: dict) -> Tokens:
    written = total.get("cache_write_input_tokens", 0)
    cached = total["cached_input_tokens"]
    return Tokens(total["input_tokens"] - cached - written, total["output_tokens"], cached, written)


def by_hand(recs: list[dict]) -> Iterator[tuple[float, Tokens]]:
    """Each request's tokens and time: the growth of the running total at each token_count that grows it."""
    previous = Tokens()
    for record in recs:
        if is_count(record):
            total = tokens_of(record["payload"]["info"]["total_token_usage"])
            grown = total.minus(previous)
            if not grown.empty:
                at = dt.datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")).timestamp()
                yield at, grown
            previous = total


def total_of(recs: list[dict]) -> Tokens:
    found = Tokens()
    for _at, grown in by_hand(recs):
        found = found.plus(grown)
    return found


class Reader:
    """One isolated Codex folder and store, and the source's own read and commit of one rollout at a time."""

    def __init__(self, root: Path) -> None:
        self.codex = root / "codex"
        self.day = self.codex / "sessions" / "2026" / "02" / "23"
        self.day.mkdir(parents=True)
        self.conn = store.connect(root / "store.sqlite3")
        self.rollouts: dict[str, Rollout] = {}
        self.open: set[str] = set()

    def read(self, path: Path, now: float) -> Batch:
        batch = Batch()
        read_rollout(self.rollouts, str(path), self.codex, self.codex / "memories", now, batch, self.open.__contains__)
        rollout = self.rollouts.get(str(path))
        if rollout is not None and rollout.dirty:
            with self.conn:
                save_rollout(self.conn, rollout, now)
        return batch

    def tokens(self, thread: str) -> Tokens:
        usage = ledger.sessions(self.conn).get(f"codex:{thread}")
        return usage.tokens if usage is not None else Tokens()


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[Reader]:
    r = Reader(tmp_path)
    yield r
    r.conn.close()


def thread_of(path: Path) -> str:
    return path.name[-THREAD_LEN - len(".jsonl") : -len(".jsonl")]


def test_a_finished_rollouts_last_line_without_a_newline_counts_once_when_quiet_and_not_open(reader: Reader) -> None:
    recs = records(SOURCE)
    last = max(i for i, r in enumerate(recs) if is_count(r))
    kept, rest = recs[: last + 1], recs[last + 1 :]
    path = write(reader.day / SOURCE.name, kept, newline_at_end=False)
    thread = thread_of(path)
    everything, all_but_last = total_of(kept), total_of(kept[:-1])
    assert everything != all_but_last  # the last line is a request of its own
    mtime = path.stat().st_mtime

    reader.read(path, mtime + 1)  # still being written: a line without its newline waits
    assert reader.tokens(thread) == all_but_last
    reader.open.add(thread)
    reader.read(path, mtime + QUIET_S + 1)  # quiet, but its session is open: Codex may still end the line
    assert reader.tokens(thread) == all_but_last
    reader.open.clear()
    reader.read(path, mtime + QUIET_S + 1)  # quiet and not open: the whole last record counts
    assert reader.tokens(thread) == everything
    reader.read(path, mtime + QUIET_S + 2)
    assert reader.tokens(thread) == everything  # once

    # Resumed: Codex ends the line and writes on. The last request is not counted a second time.
    with open(path, "a") as f:
        f.write("\n" + "".join(json.dumps(r) + "\n" for r in rest))
    reader.read(path, time.time())
    assert reader.tokens(thread) == total_of(recs)


def test_a_sub_agents_tokens_go_to_its_parent_without_a_row(reader: Reader) -> None:
    parent_source, child_source = sorted(CODEX_FILES, key=lambda p: p.stat().st_size)[-2:]
    parent = write(reader.day / parent_source.name, records(parent_source))
    parent_thread = thread_of(parent)
    child_thread = str(uuid.UUID(int=0x019C8A4C_0000_7000_8000_000000000001))
    child_recs = records(child_source)
    meta = child_recs[0]["payload"]
    meta["id"] = child_thread
    meta["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": parent_thread, "depth": 1}}}
    child = write(reader.day / f"rollout-2026-02-23T13-00-00-{child_thread}.jsonl", child_recs)
    parent_total, child_total = total_of(records(parent_source)), total_of(child_recs)

    reader.read(parent, time.time())
    batch = reader.read(child, time.time())
    reader.read(child, time.time())  # unchanged: nothing more

    usage = ledger.sessions(reader.conn)
    assert f"codex:{child_thread}" not in usage  # no session of its own
    assert f"codex:{child_thread}" in batch.internal  # and no row
    mine = usage[f"codex:{parent_thread}"]
    assert mine.tokens == parent_total.plus(child_total)
    assert mine.subagents == child_total
    parent_model = next(r["payload"]["model"] for r in reversed(records(parent_source)) if r["type"] == "turn_context")
    assert mine.model == parent_model  # the parent's latest state stays the parent's


def test_cache_writes_are_kept_apart_from_uncached_input(reader: Reader) -> None:
    recs = records(SOURCE)
    for record in recs:
        if is_count(record):
            info = record["payload"]["info"]
            for usage in (info["total_token_usage"], info["last_token_usage"]):
                # Codex 0.146+: a part of the input, as the cached part is.
                usage["cache_write_input_tokens"] = (usage["input_tokens"] - usage["cached_input_tokens"]) // 3
    path = write(reader.day / SOURCE.name, recs)
    reader.read(path, time.time())
    got = reader.tokens(thread_of(path))
    expected = total_of(recs)
    assert expected.cache_write > 0
    assert got == expected  # input without the written part, the written part as cache writes


def spread(recs: list[dict], first: dt.datetime, last: dt.datetime) -> list[dict]:
    """The same records with their times spread evenly from `first` to `last` (UTC), in their order."""
    step = (last - first) / max(1, len(recs) - 1)
    for i, record in enumerate(recs):
        record["timestamp"] = (first + step * i).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return recs


def days_by_hand(recs: list[dict], zone: str) -> dict[str, Tokens]:
    days: dict[str, Tokens] = {}
    for at, grown in by_hand(recs):
        day = dt.datetime.fromtimestamp(at, zoneinfo.ZoneInfo(zone)).strftime("%Y-%m-%d")
        days[day] = days.get(day, Tokens()).plus(grown)
    return days


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield
    monkeypatch.undo()
    time.tzset()


def days_read(reader: Reader, path: Path, zone_name: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Tokens]:
    reader.read(path, time.time())  # in one go, as a finished rollout is
    monkeypatch.setenv("TZ", zone_name)
    time.tzset()
    built = report.build(reader.conn, 0.0, "day", names=names, costs=False)
    return {row.key: row.tokens for row in built.rows}


@pytest.mark.usefixtures("zone")
@pytest.mark.parametrize(
    ("zone_name", "hour", "hours"),
    [
        # Across midnight in UTC-3: 02:00 to 04:00 UTC is 23:00 to 01:00 in São Paulo (each request on its day).
        ("America/Sao_Paulo", 2, 2),
        # 18:00 to 19:00 UTC is 23:30 to 00:30 in India (+5:30): an hourly bucket would put 18:30-19:00 on the
        # wrong day.
        ("Asia/Kolkata", 18, 1),
    ],
)
def test_each_request_is_dated_by_its_own_token_count_on_exact_local_days(
    reader: Reader, monkeypatch: pytest.MonkeyPatch, zone_name: str, hour: int, hours: int
) -> None:
    first = dt.datetime(2026, 2, 23, hour, 0, tzinfo=dt.UTC)
    last = first + dt.timedelta(hours=hours)
    recs = spread(records(SOURCE), first, last)
    path = write(reader.day / SOURCE.name, recs)
    expected = days_by_hand(recs, zone_name)
    assert len(expected) == 2
    assert days_read(reader, path, zone_name, monkeypatch) == expected


def test_the_migration_counts_codex_rollouts_again_by_quarter_hour(tmp_path: Path) -> None:
    from lunavect.store.migrations import MIGRATIONS

    mine = next(i for i, m in enumerate(MIGRATIONS) if "RENAME COLUMN hour TO quarter" in m)
    conn = store.connect(tmp_path / "new.sqlite3")  # made whole, then taken back to before this migration
    conn.close()
    import sqlite3

    old = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    for migration in MIGRATIONS[:mine]:
        for statement in migration.split(";"):
            if statement.strip():
                old.execute(statement)
    old.execute(f"PRAGMA user_version = {mine}")
    old.execute(
        "INSERT INTO codex_rollout (path, thread_id, cursor, summary, updated) VALUES ('/r.jsonl', 't', ?, ?, 0)",
        ('{"offset":10,"usage":{"read_to":10}}', '{"size":10,"header":true}'),
    )
    for path in ("/r.jsonl", "/claude.jsonl"):
        old.execute(
            "INSERT INTO usage_ledger VALUES (?, 'k', 3600, 'm', 0, 1, 2, 3, 4)",
            (path,),
        )
    old.close()
    conn = store.connect(tmp_path / "old.sqlite3")
    try:
        rows = conn.execute("SELECT path, quarter FROM usage_ledger").fetchall()
        cursor, summary = conn.execute("SELECT cursor, summary FROM codex_rollout").fetchone()
    finally:
        conn.close()
    assert rows == [("/claude.jsonl", 3600)]  # another client's rows stay; Codex's are counted again
    assert json.loads(cursor) == {"offset": 10} and json.loads(summary)["size"] == -1
    assert os.path.exists(tmp_path / "old.sqlite3")
