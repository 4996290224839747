"""`lunavect show`'s reader: the last 50 messages of a 2 GB transcript against a 1 MB one, and a follow's cost
per appended KB.

Builds, in a temporary folder, a 2 GB Claude Code transcript and a 1 MB one by repeating real records (the
two large spotter sessions of ../shared/data/claude/, as bench/transcript_read.py does), then measures:

1. the wall time and peak memory (`resource.getrusage` of a child process) of reading the last 50 messages
   (lunavect.conversation.window.read_window) of each file, children interleaved round-robin, against a
   baseline child that imports the same code and reads nothing;
2. a follow (lunavect.conversation.follow.Follower) on the 1 MB file: the time of one poll after appending
   1 KB, 16 KB and 256 KB of real records, per appended KB, and the bytes it read per byte appended.

    .venv/bin/python bench/peek.py                # 2048 MB
    .venv/bin/python bench/peek.py --size-mb 256  # quicker

Not a test: it asserts nothing and prints Markdown for docs/performance.md. The folder is deleted at the end
(disk: it needs the file's size plus a little free).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, machine_line, md_table, ms  # noqa: E402
from transcript_read import build, real_records  # noqa: E402

sys.path.insert(0, SRC)

CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {src!r})
from pathlib import Path
from lunavect.conversation.source import Source
from lunavect.conversation.window import read_window
path = sys.argv[1]
started = time.perf_counter()
count = 0
if path != "-":
    count = len(read_window(Source(Path(path), "claude"), messages=50).messages)
elapsed = time.perf_counter() - started
print(json.dumps({{"s": elapsed, "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "n": count}}))
"""


def child(path: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(src=SRC), path], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def windows(big: Path, small: Path, rounds: int) -> list[list[str]]:
    runs: dict[str, list[dict]] = {"baseline": [], "1 MB": [], "big": []}
    order = [("baseline", "-"), ("1 MB", str(small)), ("big", str(big))]
    for round_ in range(rounds):
        for name, path in order[round_ % 3 :] + order[: round_ % 3]:
            runs[name].append(child(path))
    base_rss = statistics.median(r["rss_kb"] for r in runs["baseline"])
    small_s = statistics.median(r["s"] for r in runs["1 MB"])
    rows = []
    for name, label in (("1 MB", "1 MB"), ("big", f"{big.stat().st_size / 2**30:.1f} GB")):
        time_s = statistics.median(r["s"] for r in runs[name])
        rss = statistics.median(r["rss_kb"] for r in runs[name])
        rows.append(
            [
                label,
                str(runs[name][0]["n"]),
                ms(time_s),
                f"{time_s / small_s:.2f}x",
                f"{rss / 1024:.1f} MB",
                f"+{(rss - base_rss) / 1024:.1f} MB",
            ]
        )
    return rows


def follow(small: Path, records: bytes, rounds: int) -> list[list[str]]:
    from lunavect.conversation.follow import Follower
    from lunavect.conversation.source import Source

    rows = []
    for size in (1024, 16 * 1024, 256 * 1024):
        chunk = records[:size]
        chunk = chunk[: chunk.rfind(b"\n") + 1] or records[: records.find(b"\n") + 1]
        times, ratios = [], []
        for _ in range(rounds):
            target = small.with_name("follow.jsonl")
            target.write_bytes(small.read_bytes())
            follower = Follower(Source(target, "claude"), messages=50)
            follower.poll()
            with target.open("ab") as out:
                out.write(chunk)
            started = time.perf_counter()
            update = follower.poll()
            times.append(time.perf_counter() - started)
            ratios.append(update.bytes_read / len(chunk))
        median = statistics.median(times)
        rows.append(
            [
                f"{len(chunk) / 1024:.1f} KB",
                ms(median),
                f"{median * 1e6 / (len(chunk) / 1024):.0f} µs",
                f"{statistics.median(ratios):.3f}",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    records = real_records()
    with tempfile.TemporaryDirectory(prefix="lunavect-peek-bench-") as folder:
        big, small = Path(folder, "big.jsonl"), Path(folder, "small.jsonl")
        build(big, args.size_mb * 2**20, records)
        build(small, 2**20, records)
        print(f"# lunavect show: the last 50 messages ({machine_line()})\n")
        print(
            md_table(
                ["file", "messages", "time ms (median)", "vs 1 MB", "peak RSS", "vs baseline child"],
                windows(big, small, args.rounds),
            )
        )
        print("\n# a follow's poll after an append (1 MB transcript, 50 messages held)\n")
        print(
            md_table(
                ["appended", "poll ms (median)", "per KB", "bytes read / appended"], follow(small, records, args.rounds)
            )
        )


if __name__ == "__main__":
    main()
