"""How long from a hook event to its effect being visible: in `lunavect list --json`, and in the store.

One collector runs in a temporary LUNAVECT_HOME (`python -m lunavect daemon`). Each round runs, in
rotating order:

- list:   the installed hook shim with a PreToolUse for a new tool name, then `lunavect list --json` until
          that tool shows as the session's activity (`list` pokes the collector and waits until it caught
          up, so one call should always do);
- sqlite: the same, then an in-process poll of the store's `snapshot` table (what a front end that keeps a
          connection open sees; nothing pokes the collector, it notices the spool by itself);
- bare:   one `lunavect list --json` with nothing new: the baseline;
- cli:    one `lunavect --version`: what starting the CLI alone costs, for reading the baseline.

    .venv/bin/python bench/hook_to_list.py --runs 40

Not a test: it prints Markdown tables for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import agent_home, hook_payload, machine_line, md_table, ms, p90, resolve, spawn_timed  # noqa: E402
from _collector import running_collector  # noqa: E402

VISIBLE_TIMEOUT_S = 15.0


def pre_tool_use(session_id: str, home: str, tool: str, tool_use_id: str) -> bytes:
    return json.dumps(
        hook_payload("PreToolUse", session_id, home)
        | {
            "tool_name": tool,
            "tool_input": {"command": "npm test", "description": "Run test suite", "timeout": 120000},
            "tool_use_id": tool_use_id,
        }
    ).encode()


LIST_PHASES_CHILD = r"""
import sys, time
t0 = time.perf_counter()
from lunavect.cli import common, root
t1 = time.perf_counter()
from lunavect.collector import process as collector
from lunavect.frontends.table import render
from lunavect.listing.sessions import read_sessions
t2 = time.perf_counter()
conn = common.open_store()
t3 = time.perf_counter()
collector.ensure_running()
t4 = time.perf_counter()
collector.wait_caught_up(conn)
t5 = time.perf_counter()
import msgspec
text = msgspec.json.encode(read_sessions(conn)).decode()
t6 = time.perf_counter()
print(repr([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5]))
"""
LIST_PHASES = [
    "import lunavect.cli.root (click, msgspec)",
    "import collector, sessions, table (psutil, lunavect.shim via spool...)",
    "open the store",
    "ensure_running (a collector already runs)",
    "wait_caught_up (poke, wait for a tick that started after the call)",
    "read and encode the sessions",
]


def list_phases(env: dict[str, str], runs: int) -> str:
    """Where a `lunavect list --json` spends its time, measured inside a process like the CLI's."""
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", LIST_PHASES_CHILD], capture_output=True, env=env, check=True)
        samples.append(eval(done.stdout))  # noqa: S307 - our own child's repr of a list of floats
    medians = [statistics.median(column) for column in zip(*samples, strict=True)]
    rows = [[name, ms(value)] for name, value in zip(LIST_PHASES, medians, strict=True)]
    rows.append(["**total after interpreter start and site**", f"**{ms(sum(medians))}**"])
    return f"Phases of `lunavect list --json`, median of {runs} runs (ms):\n\n" + md_table(["phase", "ms"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="rounds (each: list, sqlite, bare, cli; default 40)")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured rounds first (default 2)")
    parser.add_argument("--poll", type=float, default=0.001, help="sqlite poll interval in s (default 0.001)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="also time list's phases over N runs")
    args = parser.parse_args()
    lunavect = resolve([os.path.join(os.path.dirname(sys.executable), "lunavect")])[0]

    with agent_home("lunavect-bench-h2l-") as agent:
        from lunavect import paths, store

        env, shim, out_fd = agent.env, agent.shim, agent.out_fd
        session_id = str(uuid.uuid4())
        key = f"claude:{session_id}"
        results: dict[str, list[float]] = {"list": [], "sqlite": [], "bare": [], "cli": []}
        shim_wall: dict[str, list[float]] = {"list": [], "sqlite": []}
        counts: dict[str, list[int]] = {"list": [], "sqlite": []}
        failures: list[str] = []
        with running_collector(env):
            conn = sqlite3.connect(paths.store_path(), timeout=store.BUSY_TIMEOUT_MS / 1000, isolation_level=None)

            def list_json() -> list[dict]:
                done = subprocess.run([lunavect, "list", "--json"], capture_output=True, env=env, timeout=60)
                if done.returncode != 0:
                    raise SystemExit(f"lunavect list failed: {done.stderr.decode()[-500:]}")
                return json.loads(done.stdout)

            def shows_in_list(tool: str) -> bool:
                return any(s["id"] == key and s.get("activity") == tool for s in list_json())

            def shows_in_store(tool: str) -> bool:
                row = conn.execute("SELECT data FROM snapshot WHERE id = ?", (key,)).fetchone()
                return row is not None and json.loads(row[0]).get("activity") == tool

            modes = ["list", "sqlite", "bare", "cli"]
            for round_no in range(args.warmup + args.runs):
                shift = round_no % len(modes)
                for mode in modes[shift:] + modes[:shift]:
                    measured = round_no >= args.warmup
                    if mode == "bare":
                        start = time.perf_counter()
                        list_json()
                        if measured:
                            results["bare"].append(time.perf_counter() - start)
                        continue
                    if mode == "cli":
                        start = time.perf_counter()
                        subprocess.run([lunavect, "--version"], capture_output=True, env=env, check=True)
                        if measured:
                            results["cli"].append(time.perf_counter() - start)
                        continue
                    tool = f"Bench{mode.capitalize()}{round_no:04d}"
                    payload = pre_tool_use(session_id, env["HOME"], tool, f"toolu_bench_{mode}_{round_no}")
                    check = shows_in_list if mode == "list" else shows_in_store
                    start = time.perf_counter()
                    run = spawn_timed(shim, payload, env, out_fd)
                    attempts = 0
                    while True:
                        attempts += 1
                        if check(tool):
                            break
                        if time.perf_counter() - start > VISIBLE_TIMEOUT_S:
                            failures.append(f"{mode} round {round_no}: {tool} not visible after {VISIBLE_TIMEOUT_S} s")
                            break
                        if mode == "sqlite":
                            time.sleep(args.poll)
                    elapsed = time.perf_counter() - start
                    if measured:
                        results[mode].append(elapsed)
                        shim_wall[mode].append(run.wall_s)
                        counts[mode].append(attempts)
            conn.close()
            profile_text = list_phases(env, args.profile) if args.profile else ""

        print(f"## Hook event to visible state ({args.runs} rounds, interleaved)\n")
        print(f"Machine: {machine_line()}  ")
        print(f"Shim: `{shlex.join(shim)}`; collector: `{sys.executable} -m lunavect daemon --quiet`.")
        if failures:
            print(f"\nFAILURES ({len(failures)}): " + "; ".join(failures[:5]))
        print()
        rows = []
        labels = {
            "list": "hook shim, then `lunavect list --json` until the tool shows",
            "sqlite": f"hook shim, then poll `snapshot` in-process every {args.poll * 1000:g} ms until it shows",
            "bare": "bare `lunavect list --json` (nothing new; baseline)",
            "cli": "`lunavect --version` (CLI start and imports only; reference)",
        }
        for mode, label in labels.items():
            values = results[mode]
            after = (
                ms(statistics.median(v - s for v, s in zip(values, shim_wall[mode], strict=False)))
                if mode in shim_wall
                else "-"
            )
            tries = f"{statistics.median(counts[mode]):g} / {max(counts[mode])}" if mode in counts else "1"
            rows.append(
                [
                    label,
                    ms(statistics.median(values)),
                    ms(p90(values)),
                    ms(min(values)),
                    ms(max(values)),
                    ms(statistics.median(shim_wall[mode])) if mode in shim_wall else "-",
                    after,
                    tries,
                ]
            )
        print(
            md_table(
                [
                    "measure",
                    "median ms",
                    "p90 ms",
                    "min ms",
                    "max ms",
                    "shim ms",
                    "after shim ms",
                    "calls median / max",
                ],
                rows,
            )
        )
        bare = statistics.median(results["bare"])
        print(
            f"\nhook -> list / bare list: {statistics.median(results['list']) / bare:.2f}x; "
            f"hook -> store (sqlite poll) / bare list: {statistics.median(results['sqlite']) / bare:.2f}x"
        )
        if profile_text:
            print("\n" + profile_text)


if __name__ == "__main__":
    main()
