"""lunavect beside ccusage, the peer people already check their tokens with, on the same history of real files.

The history: shared/data's real Claude Code transcripts (their sub-agents' files beside them) and Codex rollouts,
copied `--copies` times under new session ids into an isolated home. Interleaved rounds, each of:

- the floor: `cat` and `wc -l` over every file (CPU seconds per GB);
- ccusage (pinned, from $LUNAVECT_CLIENTS_DIR/ccusage, offline): `ccusage daily --json`, which reads every file
  at each run (its CPU per GB, and its time to answer);
- lunavect, cold: a collector from an empty store to rest (its own CPU per GB: every file read, the history
  stored);
- lunavect, again: `lunavect usage --json` against that collector at rest (the time to answer).

    .venv/bin/python bench/peer.py [--copies 40] [--rounds 5]

Not a test: prints Markdown for docs/performance.md (medians; the machine's line says its load).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, home_folders, machine_line, md_table, shared_data  # noqa: E402
from _collector import spawn_collector  # noqa: E402

sys.path.insert(0, SRC)

CLIENTS = Path(os.environ.get("LUNAVECT_CLIENTS_DIR") or Path.home() / ".cache" / "lunavect-test-clients")
CCUSAGE = CLIENTS / "ccusage" / "node_modules" / ".bin" / "ccusage"


def lay_out(env: dict[str, str], copies: int) -> list[Path]:
    """The history, each copy under new ids (the file's name and the ids inside it), as the clients lay it out."""
    data = shared_data()
    files: list[Path] = []
    claude = Path(env["CLAUDE_CONFIG_DIR"]) / "projects"
    codex = Path(env["CODEX_HOME"]) / "sessions" / "2026" / "02" / "23"
    codex.mkdir(parents=True, exist_ok=True)
    for n in range(copies):
        for source in sorted((data / "claude").glob("*/*.jsonl")):
            old = source.stem
            new = str(uuid.uuid5(uuid.NAMESPACE_URL, f"lunavect-peer/{n}/{old}"))
            folder = claude / f"-home-USER-{source.parent.name}-{n}"
            folder.mkdir(parents=True, exist_ok=True)
            files.append(folder / f"{new}.jsonl")
            files[-1].write_bytes(source.read_bytes().replace(old.encode(), new.encode()))
            agents = source.parent / old / "subagents"
            if agents.is_dir():
                (folder / new / "subagents").mkdir(parents=True)
                for agent in agents.glob("*.jsonl"):
                    files.append(folder / new / "subagents" / agent.name)
                    shutil.copyfile(agent, files[-1])
        for source in sorted((data / "codex").rglob("rollout-*.jsonl")):
            old = source.stem[-36:]
            new = str(uuid.uuid5(uuid.NAMESPACE_URL, f"lunavect-peer/{n}/{old}"))
            files.append(codex / source.name.replace(old, new))
            files[-1].write_bytes(source.read_bytes().replace(old.encode(), new.encode()))
    return files


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and what it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.decode(errors='replace')[:400]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def process_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def collector_cold(env: dict[str, str]) -> float:
    """A collector from an empty store to rest: its CPU seconds (read from /proc once it has read everything
    and its CPU stopped growing)."""
    shutil.rmtree(env["LUNAVECT_HOME"], ignore_errors=True)
    os.makedirs(env["LUNAVECT_HOME"], mode=0o700)
    proc = spawn_collector(env)
    store = Path(env["LUNAVECT_HOME"]) / "lunavect.sqlite3"
    try:
        last, still = -1.0, 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            time.sleep(0.5)
            cpu = process_cpu(proc.pid)
            reading = None
            if store.exists():
                try:
                    conn = sqlite3.connect(store, timeout=5)
                    row = conn.execute("SELECT value FROM collector WHERE key = 'reading'").fetchone()
                    conn.close()
                    reading = row[0] if row else None
                except sqlite3.OperationalError:
                    reading = None
            still = still + 1 if reading == "" and cpu - last < 0.02 else 0
            last = cpu
            if still >= 4:
                return cpu
        raise SystemExit("the collector did not come to rest within 600 s")
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not CCUSAGE.exists():
        raise SystemExit(f"ccusage is not in {CCUSAGE.parent}: scripts/test installs it")
    root = tempfile.mkdtemp(prefix="lunavect-peer-")
    try:
        env = {**os.environ, **home_folders(root), "TZ": "UTC", "NO_COLOR": "1"}
        env.pop("XDG_DATA_HOME", None)
        files = lay_out(env, args.copies)
        gb = sum(f.stat().st_size for f in files) / 1e9
        names = [str(f) for f in files]
        lunavect = [sys.executable, "-m", "lunavect"]
        runs: dict[str, list[tuple[float, float]]] = {k: [] for k in ("cat", "wc", "ccusage", "cold", "again")}
        for index in range(args.rounds):
            order = ["cat", "wc", "ccusage", "cold", "again"]
            for which in order if index % 2 == 0 else order[::-1]:
                if which == "cat":
                    runs[which].append(timed(["cat", *names], env))
                elif which == "wc":
                    runs[which].append(timed(["wc", "-l", *names], env))
                elif which == "ccusage":
                    runs[which].append(timed([str(CCUSAGE), "daily", "--json", "--offline"], env))
                elif which == "cold":
                    runs[which].append((0.0, collector_cold(env)))
                else:
                    spawn = spawn_collector(env)  # the store at rest from the last cold run: a collector resumes
                    try:
                        timed([*lunavect, "usage", "--json", "--since", "1000w"], env)  # it catches up first
                        runs[which].append(timed([*lunavect, "usage", "--json", "--since", "1000w"], env))
                    finally:
                        spawn.terminate()
                        spawn.wait(10)
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
        print(f"{len(files)} files, {gb * 1000:.1f} MB ({args.copies} copies of shared/data), {args.rounds} rounds")
        print(f"({machine_line()})\n")
        rows = [
            ["`cat` (floor)", f"{med['cat'][1] / gb:.2f}", f"{med['cat'][0]:.3f}"],
            ["`wc -l` (floor)", f"{med['wc'][1] / gb:.2f}", f"{med['wc'][0]:.3f}"],
            [
                "ccusage `daily --json` (reads all each time)",
                f"{med['ccusage'][1] / gb:.2f}",
                f"{med['ccusage'][0]:.3f}",
            ],
            ["lunavect collector, empty store to rest", f"{med['cold'][1] / gb:.2f}", "—"],
            ["`lunavect usage --json`, again", "—", f"{med['again'][0]:.3f}"],
        ]
        print(md_table(["", "CPU s per GB", "wall s"], rows))
        print(
            "\n"
            + json.dumps(
                {
                    "cold_vs_ccusage_cpu": round(med["cold"][1] / med["ccusage"][1], 2),
                    "again_vs_ccusage_wall": round(med["again"][0] / med["ccusage"][0], 3),
                }
            )
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
