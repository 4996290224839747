"""Reading Claude Code transcripts without hooks: flat memory, refresh cost, cold throughput.

Builds, in a temporary folder, a 2 GB transcript and a 1 MB one by repeating real records (the two large
spotter sessions of ../shared/data/claude/, cut at a line boundary), then measures, with the collector's
own source (ClaudeFilesSource) and a real store:

1. peak memory of a cold read of the whole 2 GB file, in a child process (`resource.getrusage`), against a
   baseline child that imports the same code, opens a store and polls an empty folder (target: < 100 MB);
2. the wall time of one refresh (a collector poll) after a 1 KB append, on the 2 GB file and on the 1 MB
   file, interleaved round-robin with a rotating start (target: ratio within 1.5x);
3. cold-read throughput in MB/s, side by side with `wc -l` on the same file;
4. where a whole read's time goes (issue 20's goal of 1 GB/s through the fold): the same file read in process,
   stage by stage (best of --stage-rounds, wall and CPU time): every line cut out (`AppendedLines` iterated);
   the cheap byte test as the whole read runs it, searched over each block, cutting out only the lines it finds;
   that and decoding them (one pass each); and the whole fold (facts, summary, usage, latest activity), beside
   `wc -l`.

    .venv/bin/python bench/transcript_read.py               # 2048 MB, 21 refresh rounds
    .venv/bin/python bench/transcript_read.py --size-mb 256 # quicker
    .venv/bin/python bench/transcript_read.py --size-mb 256 --rounds 0 --stage-rounds 5  # throughput only

Not a test: it asserts nothing and prints Markdown for docs/performance.md. The folder is deleted at the
end (disk: it needs the file's size plus a few hundred MB free).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, isolated_home, machine_line, md_table, ms, p90, shared_data  # noqa: E402

sys.path.insert(0, SRC)

DATA = shared_data() / "claude" / "spotter"
SOURCES = ["258c7280-ae70-4798-800f-63464d01a85d.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"]
SESSION_BIG = "b1b1b1b1-0000-4000-8000-000000000001"
SESSION_SMALL = "5a5a5a5a-0000-4000-8000-000000000002"


def real_records() -> bytes:
    return b"".join((DATA / name).read_bytes() for name in SOURCES)


def build(path: Path, size: int, records: bytes) -> int:
    """Repeat `records` into `path` up to `size` bytes, ending at a line boundary; returns the size."""
    with open(path, "wb") as f:
        written = 0
        while written + len(records) <= size:
            f.write(records)
            written += len(records)
        rest = records[: size - written]
        rest = rest[: rest.rfind(b"\n") + 1]
        f.write(rest)
        written += len(rest)
    return written


def append_piece(records: bytes, size: int = 1024) -> bytes:
    """About `size` bytes of complete real lines (small records, so a piece holds several)."""
    piece = b""
    for line in records.splitlines(keepends=True):
        if len(line) < 400 and b'"type":"' in line:
            piece += line
            if len(piece) >= size:
                break
    return piece


def caught_up(conn, path: Path) -> bool:
    row = conn.execute("SELECT cursor FROM claude_transcript WHERE path = ?", (str(path),)).fetchone()
    return row is not None and not json.loads(row[0]).get("partial")


# -- the child process: one cold read, its time and its peak memory -------------------------------------------


def child(mode: str, config: str, store_path: str, path: str) -> None:
    from lunavect import store
    from lunavect.clients.claude.files_source import ClaudeFilesSource
    from lunavect.collector.tick import Collector

    conn = store.connect(Path(store_path))
    source = ClaudeFilesSource(config_dir=Path(config), processes=dict)
    collector = Collector(conn, sources=[source])
    started = time.perf_counter()
    polls = 0
    if mode == "read":
        while True:
            collector.poll_sources(now=time.time())
            polls += 1
            if caught_up(conn, Path(path)):
                break
    else:  # baseline: the same code, an empty folder
        collector.poll_sources(now=time.time())
        polls = 1
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {"seconds": elapsed, "polls": polls, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
        )
    )


def run_child(mode: str, config: Path, store_path: Path, path: Path, env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", mode, str(config), str(store_path), str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


# -- where a whole read's time goes ----------------------------------------------------------------------------


def _lines_only(path: Path) -> int:
    from lunavect.clients.claude.transcript import AppendedLines

    with AppendedLines(path, None, 1 << 62) as lines:
        return sum(1 for _ in lines)


def _byte_test(path: Path) -> int:
    """The lines that can matter, found as the whole read finds them: the pattern searched over each block."""
    from lunavect.clients.claude.records import might_matter_pattern
    from lunavect.clients.claude.transcript import AppendedLines

    with AppendedLines(path, None, 1 << 62) as lines:
        return sum(len(found) for found in lines.matching(might_matter_pattern))


def _decode(path: Path) -> int:
    import msgspec

    from lunavect.clients.claude.record_shapes import typed_record_decoder
    from lunavect.clients.claude.records import might_matter_pattern
    from lunavect.clients.claude.transcript import AppendedLines

    decoded = 0
    with AppendedLines(path, None, 1 << 62) as lines:
        for found in lines.matching(might_matter_pattern):
            for _, line in found:
                if line is not None:
                    try:
                        typed_record_decoder.decode(line)
                        decoded += 1
                    except (msgspec.DecodeError, msgspec.ValidationError):
                        pass
    return decoded


def _fold(path: Path) -> int:
    from lunavect.clients.claude.fold import fold_lines
    from lunavect.clients.claude.latest import Latest
    from lunavect.clients.claude.summary import TranscriptSummary
    from lunavect.clients.claude.transcript import AppendedLines

    summary = TranscriptSummary(session_id=SESSION_BIG)
    latest = Latest(SESSION_BIG)
    with AppendedLines(path, None, 1 << 62) as lines:
        fold_lines(lines, summary, latest, time.time())
        latest.evidence()
    return summary.responses


def stages(path: Path, rounds: int) -> list[tuple[str, float, float | None]]:
    """(stage, best wall seconds, best CPU seconds) for `wc -l` and each in-process stage, interleaved."""
    steps = {
        "`wc -l` (baseline)": None,
        "lines only (`AppendedLines`)": _lines_only,
        "the cheap byte test over each block (not line by line)": _byte_test,
        "+ one-pass decode of the lines that pass": _decode,
        "the whole fold (`fold_lines`)": _fold,
    }
    best = {name: (float("inf"), float("inf")) for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            wall, cpu = time.perf_counter(), time.process_time()
            if step is None:
                subprocess.run(["wc", "-l", str(path)], stdout=subprocess.DEVNULL, check=True)
                cpu_used = float("inf")  # another process: its CPU time is not ours to read
            else:
                step(path)
                cpu_used = time.process_time() - cpu
            wall_used = time.perf_counter() - wall
            best[name] = (min(best[name][0], wall_used), min(best[name][1], cpu_used))
    return [(name, wall, cpu if cpu != float("inf") else None) for name, (wall, cpu) in best.items()]


# -- the measurements ----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=21, help="refresh rounds; 0 skips the refresh measurement")
    parser.add_argument("--stage-rounds", type=int, default=3, help="rounds of the stage by stage reads; 0 skips")
    parser.add_argument("--child", nargs=4, metavar=("MODE", "CONFIG", "STORE", "PATH"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    size = args.size_mb << 20
    with isolated_home("lv-bench-transcript-") as env:
        root = Path(env["HOME"]).parent
        free = shutil.disk_usage(root).free
        if free < size + (512 << 20):
            sys.exit(f"transcript_read: {free >> 20} MB free in {root}; {args.size_mb + 512} MB needed")
        records = real_records()
        config = Path(env["CLAUDE_CONFIG_DIR"])
        big_dir, small_dir = config / "big", config / "small"
        for folder in (big_dir, small_dir):
            (folder / "projects" / "-bench").mkdir(parents=True)
        big = big_dir / "projects" / "-bench" / f"{SESSION_BIG}.jsonl"
        small = small_dir / "projects" / "-bench" / f"{SESSION_SMALL}.jsonl"
        big_size = build(big, size, records)
        small_size = build(small, 1 << 20, records)
        print(f"machine: {machine_line()}")
        print(f"files: {big_size / 2**20:.0f} MB and {small_size / 2**20:.2f} MB of repeated real records\n")

        # 1 and 3: cold reads in children, side by side with wc -l (the page cache warmed by one wc first).
        timed(["wc", "-l", str(big)])
        wc = timed(["wc", "-l", str(big)])
        base = run_child("baseline", config / "empty", root / "baseline.sqlite3", big, env)
        cold = run_child("read", big_dir, root / "big.sqlite3", big, env)
        cold_small = run_child("read", small_dir, root / "small.sqlite3", small, env)
        mb = big_size / 2**20
        print(
            md_table(
                ["run", "wall s", "MB/s", "peak RSS MB", "polls"],
                [
                    [
                        "baseline: same code, empty folder",
                        f"{base['seconds']:.2f}",
                        "-",
                        f"{base['maxrss_kb'] / 1024:.1f}",
                        str(base["polls"]),
                    ],
                    [
                        f"cold read, {mb:.0f} MB",
                        f"{cold['seconds']:.2f}",
                        f"{mb / cold['seconds']:.0f}",
                        f"{cold['maxrss_kb'] / 1024:.1f}",
                        str(cold["polls"]),
                    ],
                    [
                        f"cold read, {small_size / 2**20:.0f} MB",
                        f"{cold_small['seconds']:.3f}",
                        f"{small_size / 2**20 / cold_small['seconds']:.0f}",
                        f"{cold_small['maxrss_kb'] / 1024:.1f}",
                        str(cold_small["polls"]),
                    ],
                    [f"`wc -l`, {mb:.0f} MB (cached)", f"{wc:.2f}", f"{mb / wc:.0f}", "-", "-"],
                ],
            )
        )
        print(
            f"\npeak RSS over baseline: {(cold['maxrss_kb'] - base['maxrss_kb']) / 1024:.1f} MB; "
            f"cold read / wc -l time: {cold['seconds'] / wc:.1f}x\n"
        )

        # 4: stage by stage, in this process, interleaved with wc -l.
        if args.stage_rounds:
            rows = []
            found = stages(big, args.stage_rounds)
            wc_best = found[0][1]
            for name, wall, cpu in found:
                cpu_text = "-" if cpu is None else f"{cpu:.3f} ({mb / cpu:.0f} MB/s)"
                rows.append([name, f"{wall:.3f}", f"{mb / wall:.0f}", f"{100 * wc_best / wall:.1f} %", cpu_text])
            print(f"stage by stage, best of {args.stage_rounds} ({machine_line()}):\n")
            print(md_table(["stage", "wall s", "MB/s", "of `wc -l`", "CPU s (MB/s)"], rows))
            print()
        if not args.rounds:
            return

        # 2: a refresh after a 1 KB append, big and small, round-robin in this process.
        from lunavect import store
        from lunavect.clients.claude.files_source import ClaudeFilesSource
        from lunavect.collector.tick import Collector

        piece = append_piece(records)
        setups = {}
        big_name = f"{mb:.0f} MB"
        for name, folder, path, store_path in (
            (big_name, big_dir, big, root / "big.sqlite3"),
            ("1 MB", small_dir, small, root / "small.sqlite3"),
        ):
            conn = store.connect(store_path)
            collector = Collector(conn, sources=[ClaudeFilesSource(config_dir=folder, processes=dict)])
            collector.poll_sources(now=time.time())  # already caught up: nothing to read
            assert caught_up(conn, path)
            setups[name] = (collector, path)
        times: dict[str, list[float]] = {name: [] for name in setups}
        names = list(setups)
        for round_ in range(args.rounds):
            order = names[round_ % 2 :] + names[: round_ % 2]
            for name in order:
                collector, path = setups[name]
                with open(path, "ab") as f:
                    f.write(piece)
                started = time.perf_counter()
                collector.poll_sources(now=time.time())
                times[name].append(time.perf_counter() - started)
        small_median = statistics.median(times["1 MB"])
        print(
            md_table(
                ["file", "refresh median ms", "p90 ms", "ratio to 1 MB"],
                [
                    [
                        f"{name} (+{len(piece)} B per refresh)",
                        ms(statistics.median(values)),
                        ms(p90(values)),
                        f"{statistics.median(values) / small_median:.2f}x",
                    ]
                    for name, values in times.items()
                ],
            )
        )


if __name__ == "__main__":
    main()
