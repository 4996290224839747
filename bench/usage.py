"""Usage figures: what reading them adds to a refresh, and `lunavect usage --since 30d` over 1,000 sessions.

1. Refresh after a 1 KB append (real assistant records of ../shared/data, each with its `message.usage`) to
   a 1 MB Claude transcript, with the collector's own source and a real store: with usage read, and with
   the usage step switched off in the same process (its decode and its store writes), interleaved
   round-robin. The same for a Codex rollout (a real `token_count` event appended), with the rollout
   cursor's usage scan on and off.
2. `usage --since 30d --by day|model|project|session` (report.build and render) over a store holding
   1,000 sessions with 30 days of hourly history in two models each, side by side with `read_sessions`
   (what `lunavect list` reads) on the same store.

    .venv/bin/python bench/usage.py [--rounds 31]

Not a test: prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, machine_line, md_table, ms, p90, shared_data  # noqa: E402

sys.path.insert(0, SRC)

CLAUDE = shared_data() / "claude" / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CODEX = shared_data() / "codex" / "localpush" / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"


def assistant_piece(data: bytes, size: int = 1024) -> bytes:
    lines = sorted((line for line in data.splitlines(keepends=True) if b'"usage"' in line), key=len)
    piece = b""
    for line in lines:
        piece += line
        if len(piece) >= size:
            break
    return piece


class Switch:
    """Usage reading on or off, by replacing its entry points (what the refresh would cost without it)."""

    def __init__(self) -> None:
        from lunavect.clients.claude import records, transcript_rows
        from lunavect.clients.codex import cursor

        self.saved = (records.message_usage, transcript_rows.save_usage, cursor.UsageScan.block)

    def set(self, on: bool) -> None:
        from lunavect.clients.claude import records, transcript_rows
        from lunavect.clients.codex import cursor

        usage, save, block = self.saved
        records.message_usage = usage if on else (lambda *a, **k: None)
        transcript_rows.save_usage = save if on else (lambda *a, **k: None)
        cursor.UsageScan.block = block if on else (lambda *a, **k: None)


def claude_refresh(root: Path, rounds: int, switch: Switch) -> dict[bool, list[float]]:
    from lunavect import store
    from lunavect.clients.claude.files_source import ClaudeFilesSource
    from lunavect.collector.tick import Collector

    data = CLAUDE.read_bytes()
    base = (data * (1 + (1 << 20) // len(data)))[: 1 << 20]
    base = base[: base.rfind(b"\n") + 1]
    piece = assistant_piece(data)
    setups = {}
    for on in (True, False):
        config = root / f"claude-{on}"
        project = config / "projects" / "-p"
        project.mkdir(parents=True)
        path = project / f"5a5a5a5a-0000-4000-8000-00000000000{int(on)}.jsonl"
        path.write_bytes(base)
        conn = store.connect(root / f"store-{on}.sqlite3")
        collector = Collector(conn, sources=[ClaudeFilesSource(config_dir=config, processes=dict)])
        switch.set(on)
        for _ in range(8):
            collector.poll_sources(now=time.time())
        setups[on] = (path, collector)
    times: dict[bool, list[float]] = {True: [], False: []}
    for index in range(rounds):
        order = (True, False) if index % 2 == 0 else (False, True)
        for on in order:
            path, collector = setups[on]
            switch.set(on)
            with open(path, "ab") as f:
                f.write(piece)
            times[on].append(reading_poll(collector, path))
    switch.set(True)
    return times


def reading_poll(collector, path: Path) -> float:
    """The time of the poll that read the append (a change notification may arrive a moment after it)."""
    import json

    size = path.stat().st_size
    for _ in range(400):
        started = time.perf_counter()
        collector.poll_sources(now=time.time())
        elapsed = time.perf_counter() - started
        row = collector.conn.execute("SELECT cursor FROM claude_transcript WHERE path = ?", (str(path),)).fetchone()
        if row is not None and json.loads(row[0])["offset"] == size:
            return elapsed
        time.sleep(0.005)
    raise RuntimeError(f"the append to {path} was never read")


def codex_refresh(root: Path, rounds: int, switch: Switch) -> dict[bool, list[float]]:
    from lunavect.clients.codex.cursor import LifecycleCursor

    data = CODEX.read_bytes()
    base = data[: 1 << 20]
    base = base[: base.rfind(b"\n") + 1]
    count = next(line for line in data.splitlines(keepends=True) if b'"token_count","info":{' in line)
    other = next(line for line in data.splitlines(keepends=True) if b'"agent_reasoning"' in line and len(line) < 600)
    piece = count + other * max(0, (1024 - len(count)) // max(1, len(other)))
    cursors = {}
    for on in (True, False):
        path = root / f"rollout-{on}.jsonl"
        path.write_bytes(base)
        switch.set(on)
        cursor = LifecycleCursor()
        cursor.sample(path)
        cursors[on] = (path, cursor)
    times: dict[bool, list[float]] = {True: [], False: []}
    for index in range(rounds):
        for on in (True, False) if index % 2 == 0 else (False, True):
            path, cursor = cursors[on]
            switch.set(on)
            with open(path, "ab") as f:
                f.write(piece)
            started = time.perf_counter()
            cursor.sample(path)
            times[on].append(time.perf_counter() - started)
    switch.set(True)
    return times


def history_store(path: Path, sessions: int = 1000, days: int = 30):
    import msgspec

    from lunavect import store

    conn = store.connect(path)
    now = time.time()
    with conn:
        rows = []
        for s in range(sessions):
            key = f"claude:{s:08d}-0000-4000-8000-000000000000"
            for d in range(days):
                quarter = int((now - d * 86400) // 900 * 900)
                for model in ("claude-sonnet-4-5-20250929", "claude-opus-4-5"):
                    rows.append((f"/p/{s}.jsonl", key, quarter, model, 0, 100, 2000, 50000, 3000))
            data = msgspec.json.encode({"id": key, "project": f"project-{s % 40}", "title": f"Session {s}"}).decode()
            conn.execute(
                "INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, 'idle', 1, ?, 0)", (key, data)
            )
        conn.executemany(
            "INSERT INTO usage_ledger (path, id, quarter, model, subagent, input, output, cache_read, cache_write) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    return conn


def usage_report(root: Path, rounds: int) -> list[list[str]]:
    from lunavect.listing.sessions import read_sessions
    from lunavect.usage import report

    conn = history_store(root / "history.sqlite3")
    rows = []
    for by in report.GROUPINGS:
        ours, base = [], []
        for index in range(rounds):
            for which in ("usage", "list") if index % 2 == 0 else ("list", "usage"):
                started = time.perf_counter()
                if which == "usage":
                    now = time.time()
                    report.render(report.build(conn, report.parse_since("30d", now), by, now), now)
                    ours.append(time.perf_counter() - started)
                else:
                    read_sessions(conn, include_hidden=True)
                    base.append(time.perf_counter() - started)
        rows.append(
            [
                f"`usage --since 30d --by {by}`",
                ms(statistics.median(ours)),
                ms(p90(ours)),
                ms(statistics.median(base)),
                f"{statistics.median(ours) / statistics.median(base):.2f}x",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    switch = Switch()
    with tempfile.TemporaryDirectory(prefix="lunavect-bench-usage-") as folder:
        root = Path(folder)
        claude = claude_refresh(root, args.rounds, switch)
        codex = codex_refresh(root, args.rounds, switch)
        refresh_rows = []
        for name, times in (
            ("Claude transcript (1 MB) + 1 KB of assistant records", claude),
            ("Codex rollout (1 MB) + 1 KB with a token_count", codex),
        ):
            on, off = statistics.median(times[True]), statistics.median(times[False])
            refresh_rows.append([name, ms(on), ms(p90(times[True])), ms(off), f"{on / off:.2f}x"])
        report_rows = usage_report(root, max(5, args.rounds // 3))
    print(machine_line())
    print()
    print(
        md_table(
            ["refresh after an append", "with usage (median)", "p90", "without usage (median)", "ratio"], refresh_rows
        )
    )
    print()
    print(
        md_table(["1,000 sessions × 30 days × 2 models", "median", "p90", "`list` read (median)", "ratio"], report_rows)
    )


if __name__ == "__main__":
    main()
