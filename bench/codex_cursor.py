"""The Codex lifecycle cursor: what one refresh costs on a huge rollout, and restart recovery.

Builds, in a temporary folder, a 2 GB rollout and a 1 MB one by repeating real Codex records (the localpush
rollouts of ../shared/data/codex/, cut at a line boundary, their last turn left open), then measures:

1. the wall time of one refresh after a 1 KB append (a `token_count` record of the open turn), on the 2 GB
   file against the 1 MB file, interleaved round-robin with a rotating start: the cursor alone
   (`LifecycleCursor.sample`), and a whole collector poll of the Codex source (stat, cursor, evidence, the
   store's transaction) (target: ratio within 1.5x);
2. the first read of each file by a cursor with no stored state (what a first start costs);
3. restart recovery on the 2 GB file when the open turn's start lies at its very beginning: how many polls
   and how long each takes before the exact start returns (each poll is bounded).

    .venv/bin/python bench/codex_cursor.py                # 2048 MB, 41 refresh rounds
    .venv/bin/python bench/codex_cursor.py --size-mb 256  # quicker

Not a test: it asserts nothing and prints Markdown for docs/performance.md. The folder is deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, iso_ms, isolated_home, machine_line, md_table, ms, p90, shared_data  # noqa: E402

sys.path.insert(0, SRC)

DATA = shared_data() / "codex" / "localpush"
THREAD_BIG = "01a227be-0000-7000-8000-00000000b1b1"
THREAD_SMALL = "01a227be-0000-7000-8000-000000005a5a"
OPEN_TURN = "01a227be-0000-7000-8000-0000000000aa"


def line(kind: str, payload: dict, t: float) -> bytes:
    return (
        json.dumps({"timestamp": iso_ms(t), "type": kind, "payload": payload}, separators=(",", ":")).encode() + b"\n"
    )


def body_records() -> bytes:
    """Real records without their session_meta headers (each built file gets its own)."""
    lines = []
    for path in sorted(DATA.glob("rollout-*.jsonl")):
        lines += [raw for raw in path.read_bytes().splitlines(keepends=True) if b'"type":"session_meta"' not in raw]
    return b"".join(lines)


def build(path: Path, thread: str, size: int, records: bytes, *, open_at_start: bool = False) -> int:
    """A rollout of `size` bytes: header, repeated real records, then an open turn (its start either at the
    end, or, with `open_at_start`, at the very beginning with nothing but its own records after it)."""
    now = time.time()
    header = line("session_meta", {"id": thread, "cwd": "/bench", "originator": "codex_exec", "source": "exec"}, now)
    start = line("event_msg", {"type": "task_started", "turn_id": OPEN_TURN, "started_at": int(now)}, now)
    with open(path, "wb") as f:
        f.write(header)
        written = len(header)
        if open_at_start:
            f.write(start)
            written += len(start)
            filler = line("turn_context", {"turn_id": OPEN_TURN, "cwd": "/bench", "pad": "x" * 4000}, now)
            records = filler * max(1, len(records) // len(filler))
        while written + len(records) <= size - len(start):
            f.write(records)
            written += len(records)
        rest = records[: max(0, size - len(start) - written)]
        rest = rest[: rest.rfind(b"\n") + 1]
        f.write(rest)
        written += len(rest)
        if not open_at_start:
            f.write(start)
            written += len(start)
    return written


def append_1kb(path: Path, n: int) -> None:
    payload = {
        "type": "token_count",
        "turn_id": OPEN_TURN,
        "info": {"total_token_usage": {"total_tokens": n}},
        "pad": "t" * 850,
    }
    with open(path, "ab") as f:
        f.write(line("event_msg", payload, time.time()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()

    from lunavect import store
    from lunavect.clients.codex.cursor import LifecycleCursor
    from lunavect.clients.codex.source import CodexSource
    from lunavect.collector.tick import Collector

    with isolated_home("lv-bench-codex-") as env:
        home = Path(env["CODEX_HOME"])
        day = home / "sessions" / "2026" / "11" / "29"
        day.mkdir(parents=True)
        records = body_records()
        files = {
            "2 GB" if args.size_mb >= 1024 else f"{args.size_mb} MB": day
            / f"rollout-2026-11-29T10-00-00-{THREAD_BIG}.jsonl",
            "1 MB": day / f"rollout-2026-11-29T10-00-01-{THREAD_SMALL}.jsonl",
        }
        big_label, small_label = list(files)
        t0 = time.perf_counter()
        sizes = {
            big_label: build(files[big_label], THREAD_BIG, args.size_mb * 1024 * 1024, records),
            small_label: build(files[small_label], THREAD_SMALL, 1024 * 1024, records),
        }
        built_s = time.perf_counter() - t0

        # 2. first reads, and the cursors used for the refresh rounds
        cursors, first = {}, {}
        for label, path in files.items():
            cursor = LifecycleCursor()
            started = time.perf_counter()
            answer = cursor.sample(path)
            first[label] = (time.perf_counter() - started, cursor.bytes_read, answer.status)
            cursors[label] = cursor

        # a collector with the Codex source (no app-server: LUNAVECT_CODEX names nothing)
        os.environ["LUNAVECT_CODEX"] = str(home / "no-codex")
        conn = store.connect(Path(env["LUNAVECT_HOME"]) / "bench.sqlite3")
        source = CodexSource(codex_home=home, env={"LUNAVECT_CODEX": str(home / "no-codex")})
        collector = Collector(conn, spool_dir=Path(env["LUNAVECT_HOME"]) / "spool", sources=[source])
        collector.poll_sources()

        # 1. refresh after a 1 KB append, round-robin with a rotating start
        cursor_times: dict[str, list[float]] = {label: [] for label in files}
        cursor_bytes: dict[str, list[int]] = {label: [] for label in files}
        poll_times: dict[str, list[float]] = {label: [] for label in files}
        labels = list(files)
        n = 0
        for round_ in range(args.rounds):
            order = labels[round_ % 2 :] + labels[: round_ % 2]
            for label in order:
                n += 1
                append_1kb(files[label], n)
                started = time.perf_counter()
                cursors[label].sample(files[label])
                cursor_times[label].append(time.perf_counter() - started)
                cursor_bytes[label].append(cursors[label].bytes_read)
            for label in order:
                n += 1
                append_1kb(files[label], n)
                # only this file changed since the last poll: the poll's cost is this file's refresh
                started = time.perf_counter()
                collector.poll_sources()
                poll_times[label].append(time.perf_counter() - started)
        stored = dict(conn.execute("SELECT path, cursor FROM codex_rollout").fetchall())
        caught_up = all(json.loads(stored[str(path)])["offset"] == path.stat().st_size for path in files.values())
        source.close()
        conn.close()

        # 3. restart recovery: the open turn's start at the very beginning of a big file
        recover = day / f"rollout-2026-11-29T10-00-02-{THREAD_SMALL[:-4]}cccc.jsonl"
        files[big_label].unlink()  # room on the disk
        build(recover, THREAD_SMALL, args.size_mb * 1024 * 1024, records, open_at_start=True)
        cursor = LifecycleCursor()
        polls = []
        answer = cursor.sample(recover)
        polls.append((cursor.bytes_read, answer.start is not None))
        per_poll = []
        while answer.recovering:
            started = time.perf_counter()
            answer = cursor.sample(recover)
            per_poll.append(time.perf_counter() - started)
            polls.append((cursor.bytes_read, answer.start is not None))

    print(f"Machine: {machine_line()}  ")
    print(
        f"Files: {big_label} = {sizes[big_label]:,} bytes, {small_label} = {sizes[small_label]:,} bytes, built "
        f"from {len(records):,} bytes of real records in {built_s:.1f} s; {args.rounds} rounds.\n"
    )
    rows = []
    base_c = statistics.median(cursor_times[small_label])
    base_p = statistics.median(poll_times[small_label])
    for label in labels:
        rows.append(
            [
                f"{label}: cursor sample",
                ms(statistics.median(cursor_times[label])),
                ms(p90(cursor_times[label])),
                f"{statistics.median(cursor_bytes[label]):,.0f}",
                f"{statistics.median(cursor_times[label]) / base_c:.2f}x",
            ]
        )
    for label in labels:
        rows.append(
            [
                f"{label}: collector poll",
                ms(statistics.median(poll_times[label])),
                ms(p90(poll_times[label])),
                "",
                f"{statistics.median(poll_times[label]) / base_p:.2f}x",
            ]
        )
    print(md_table(["refresh after a 1 KB append", "median ms", "p90 ms", "bytes read", f"/ {small_label}"], rows))
    print(f"\nEvery collector poll read its append: the stored cursors ended at the files' ends: {caught_up}.")
    print()
    print(
        md_table(
            ["first read (no stored state)", "ms", "bytes read", "answer"],
            [[label, ms(t), f"{b:,}", str(s)] for label, (t, b, s) in first.items()],
        )
    )
    print()
    found = next(i for i, (_, ok) in enumerate(polls) if ok) + 1 if any(ok for _, ok in polls) else None
    print(
        f"Restart recovery on {big_label}, the open turn's start on the file's second line: {len(polls)} polls until "
        f"the exact start returned (poll {found}); bytes read per poll: max {max(b for b, _ in polls):,}; "
        f"wall per recovery poll: median {ms(statistics.median(per_poll)) if per_poll else '-'} ms, "
        f"max {ms(max(per_poll)) if per_poll else '-'} ms."
    )


if __name__ == "__main__":
    main()
