"""A heavy user's history: how soon a cold start lists every past session, and what the collector costs at rest.

Builds a history of N Claude Code sessions (about 1 MB each on average) and 300 Codex rollouts over 31 days
from the real files of `shared/data` (bench/_history.py: fresh ids, 50 project folders), in a temporary home
deleted at the end, then measures, with a real collector (`python -m lunavect daemon`, started by the first
`lunavect list --json` as a person starts it):

- cold start: how many sessions the first `list --json` shows, then the time until every session is listed
  with its title and project (the store polled read-only every 0.2 s), and until the backfill is done (every
  transcript read to its end, and the collector's CPU under 5 % of a core over 3 s);
- at rest: the collector's CPU and RSS over `--idle` seconds, beside an idle `sleep` process measured over the
  same window;
- a growing transcript: one session's transcript grows by 1 KB (real records) every 100 ms; the collector's CPU
  over that window;
- `list --json` and `counts --json` wall time against `lunavect --version` (CLI start alone), interleaved;
- whole-read throughput: one transcript of `--fold-mb` folded by the collector's own Claude source, against
  `wc -l` on the same (page-cached) file.

Run each size on its own (the big ones are slow; 3,000 sessions write about 3 GB, so check the free space):

    .venv/bin/python bench/scale.py --sessions 100
    .venv/bin/python bench/scale.py --sessions 3000 --timeout 1800
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import REPO, isolated_home, machine_line, md_table, shared_data  # noqa: E402
from _history import build  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "src"))
import psutil  # noqa: E402

LUNAVECT = [sys.executable, "-m", "lunavect"]


def run_cli(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([*LUNAVECT, *args], env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def listed(store_path: Path) -> dict[str, int]:
    """Sessions the snapshot lists, by provider, and (key `titled`) how many of them have a title and a project
    (read-only, as a front end reads)."""
    try:
        conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return {}
    try:
        rows = conn.execute(
            "SELECT json_extract(data, '$.provider'), count(*), sum(json_extract(data, '$.title') IS NOT NULL "
            "AND json_extract(data, '$.project') IS NOT NULL) FROM snapshot WHERE listed = 1 GROUP BY 1"
        ).fetchall()
    except sqlite3.Error:
        return {}
    finally:
        conn.close()
    found = {provider: count for provider, count, _ in rows}
    found["titled"] = sum(titled for _, _, titled in rows)
    return found


def cpu_s(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def collector(timeout: float = 10.0) -> psutil.Process:
    from lunavect.collector.process import collector_pid

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = collector_pid()
        if pid is not None:
            return psutil.Process(pid)
        time.sleep(0.05)
    raise RuntimeError("no collector started")


def read_whole(store_path: Path, transcripts: int) -> bool:
    """True once every Claude transcript is read to its end (its cursor stored and not partial)."""
    try:
        conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return False
    try:
        (done,) = conn.execute(
            "SELECT count(*) FROM claude_transcript WHERE NOT coalesce(json_extract(cursor, '$.partial'), 0)"
        ).fetchone()
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return done >= transcripts


def settle(proc: psutil.Process, store_path: Path, transcripts: int, timeout: float) -> float:
    """Seconds until every transcript is read whole and the collector's CPU over 3 s is under 5 % of a core."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if read_whole(store_path, transcripts):
            before = cpu_s(proc)
            time.sleep(3.0)
            if (cpu_s(proc) - before) / 3.0 < 0.05:
                return time.monotonic() - start
        else:
            time.sleep(0.5)
    return float("nan")


def idle_cost(proc: psutil.Process, seconds: float) -> tuple[float, float, float]:
    """(collector CPU %, idle `sleep` CPU %, collector RSS MB) over the same window."""
    sleeper = subprocess.Popen(["sleep", str(seconds + 30)])
    try:
        idle = psutil.Process(sleeper.pid)
        c0, s0 = cpu_s(proc), cpu_s(idle)
        time.sleep(seconds)
        c1, s1 = cpu_s(proc), cpu_s(idle)
        rss = proc.memory_info().rss / 2**20
    finally:
        sleeper.kill()
        sleeper.wait()
    return 100 * (c1 - c0) / seconds, 100 * (s1 - s0) / seconds, rss


def growing_cost(proc: psutil.Process, path: str, seconds: float) -> float:
    """The collector's CPU % while one transcript grows by about 1 KB of its own records every 100 ms."""
    with open(path, "rb") as f:
        lines = [line for line in f.read().splitlines(keepends=True) if 200 < len(line) < 4000][:400]
    before = cpu_s(proc)
    start = time.monotonic()
    index = 0
    with open(path, "ab") as out:
        while time.monotonic() - start < seconds:
            chunk = b""
            while len(chunk) < 1024:
                chunk += lines[index % len(lines)]
                index += 1
            out.write(chunk)
            out.flush()
            time.sleep(0.1)
    return 100 * (cpu_s(proc) - before) / (time.monotonic() - start)


def cli_times(env: dict[str, str], rounds: int) -> dict[str, float]:
    variants = {"--version": ["--version"], "list --json": ["list", "--json"], "counts --json": ["counts", "--json"]}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(rounds):
        names = list(variants)
        names = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in names:
            times[name].append(run_cli(variants[name], env)[0])
    return {name: statistics.median(values) for name, values in times.items()}


def fold_throughput(data_dir: Path, size_mb: int) -> tuple[float, float]:
    """(MB/s of the Claude source's whole read of one transcript, MB/s of `wc -l` on it)."""
    from lunavect import store
    from lunavect.claude.files_source import ClaudeFilesSource
    from lunavect.collector.tick import Collector

    source_file = data_dir / "claude" / "spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    with tempfile.TemporaryDirectory(prefix="lunavect-fold-") as tmp:
        folder = Path(tmp) / "claude" / "projects" / "-p"
        folder.mkdir(parents=True)
        path = folder / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
        block = source_file.read_bytes()
        with open(path, "wb") as out:
            for _ in range(max(1, (size_mb << 20) // len(block))):
                out.write(block)
        size = path.stat().st_size / 2**20
        subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)  # into the page cache
        start = time.perf_counter()
        subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)
        wc = time.perf_counter() - start
        conn = store.connect(Path(tmp) / "store.db")
        source = ClaudeFilesSource(Path(tmp) / "claude", budget=1 << 40, processes=dict, one_process=lambda pid: None)
        collector = Collector(conn, spool_dir=Path(tmp) / "spool", sources=[source])
        start = time.perf_counter()
        collector.poll_sources()  # a glance lists it first
        while collector.backlog is not None:
            collector.poll_sources()  # then the whole read
        fold = time.perf_counter() - start
        conn.close()
    return size / fold, size / wc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--rollouts", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=600.0, help="longest wait for the complete list")
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of the idle window")
    parser.add_argument("--grow", type=float, default=20.0, help="seconds of the growing transcript")
    parser.add_argument("--rounds", type=int, default=9, help="rounds of the CLI timings")
    parser.add_argument("--fold-mb", type=int, default=256, help="size of the whole-read file; 0 skips it")
    args = parser.parse_args()
    data_dir = shared_data()
    need = args.sessions * 1.1 * 2**20 + (args.fold_mb + 512) * 2**20
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free < need:
        print(f"not enough free space in {tempfile.gettempdir()}: {free >> 20} MB, need {int(need) >> 20} MB")
        return 1
    print(f"Machine: {machine_line()}")
    figures: list[list[str]] = []
    with isolated_home("lunavect-scale-") as env:
        from lunavect import paths

        built = time.perf_counter()
        history = build(data_dir, Path(env["CLAUDE_CONFIG_DIR"]), Path(env["CODEX_HOME"]), args.sessions, args.rollouts)
        print(
            f"history: {args.sessions} Claude + {args.rollouts} Codex sessions, {history.bytes / 2**20:.0f} MB,"
            f" built in {time.perf_counter() - built:.1f} s"
        )
        expected = {"claude": len(history.claude), "codex": len(history.codex)}
        store_path = paths.store_path()
        start = time.monotonic()
        first_wall, out = run_cli(["list", "--json"], env)
        first = out.count('"session_id"')
        proc = collector()
        complete = {"claude": float("nan"), "codex": float("nan")}
        counts: dict[str, int] = {}
        while time.monotonic() - start < args.timeout and any(v != v for v in complete.values()):
            counts = listed(store_path)
            for provider, want in expected.items():
                if complete[provider] != complete[provider] and counts.get(provider, 0) >= want:
                    complete[provider] = time.monotonic() - start
            time.sleep(0.2)
        counts = listed(store_path)
        whole_at = time.monotonic()
        backfill = settle(proc, store_path, len(history.claude), args.timeout) + (whole_at - start)
        idle, sleeper, rss = idle_cost(proc, args.idle)
        grow = growing_cost(proc, history.claude_paths[0], args.grow)
        cli = cli_times(env, args.rounds)
        proc.terminate()
        proc.wait(10)
    fold, wc = fold_throughput(data_dir, args.fold_mb) if args.fold_mb else (float("nan"), float("nan"))
    figures.append(
        [
            f"{args.sessions} Claude + {args.rollouts} Codex",
            f"{history.bytes / 2**20:.0f} MB",
            f"{first} ({first_wall:.2f} s)",
            f"{counts.get('claude', 0)} / {counts.get('codex', 0)} ({counts.get('titled', 0)} titled)",
            f"{complete['claude']:.1f} s",
            f"{complete['codex']:.1f} s",
            f"{backfill:.0f} s",
            f"{idle:.2f} % (sleep {sleeper:.2f} %)",
            f"{rss:.0f} MB",
            f"{grow:.2f} %",
        ]
    )
    print()
    print(
        md_table(
            [
                "history",
                "size",
                "first `list --json` shows",
                "listed Claude / Codex",
                "all Claude listed",
                "all Codex listed",
                "backfill done",
                "idle CPU",
                "RSS",
                "growing transcript CPU",
            ],
            figures,
        )
    )
    print()
    print(
        md_table(
            ["command", "median s", "/ --version"],
            [[name, f"{value:.3f}", f"{value / cli['--version']:.2f}x"] for name, value in cli.items()],
        )
    )
    if args.fold_mb:
        print(f"\nwhole read: fold {fold:.0f} MB/s, wc -l {wc:.0f} MB/s ({100 * fold / wc:.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
