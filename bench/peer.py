"""Side by side with the peer: the same history's usage read by lunavect and by ccusage, with `cat` and `wc -l`.

Builds the history `bench/scale.py` builds (N real Claude Code transcripts and R real Codex rollouts of
`shared/data` with fresh ids, in a temporary home deleted at the end), then, `--runs` times, interleaved with a
rotating start:

- **cold**: ccusage's `daily --json --offline` over the whole history (it reads everything at every call), the CPU
  of lunavect's collector from an empty store until it rests (every file read whole: `scale.cold_start`), and the
  floor, `cat` and `wc -l` over the very same files, each as CPU-seconds per GB;
- **answering again**: with the collector at rest, the wall time of `lunavect usage` (the store answers) beside
  ccusage's `daily --json --offline` again.

ccusage is the pinned one the tests use (`ccusage@20.0.24` in `$LUNAVECT_CLIENTS_DIR/ccusage`, installed by
`scripts/test`), run with `--offline` so that no price list is fetched.

    .venv/bin/python bench/peer.py --sessions 600 --rollouts 300 --runs 3
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
from _benchlib import REPO, compile_tree, isolated_home, machine_line, md_table, run_timed, shared_data  # noqa: E402
from _history import build  # noqa: E402
from scale import Tree, cold_start, collector, lunavect, stop  # noqa: E402

CLIENTS_DIR = Path(os.environ.get("LUNAVECT_CLIENTS_DIR", Path.home() / ".cache" / "lunavect-test-clients"))
CCUSAGE = CLIENTS_DIR / "ccusage" / "node_modules" / ".bin" / "ccusage"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the command and the children it waited for) of one run."""
    done = run_timed(argv, env)
    if done.status != 0:
        raise RuntimeError(f"{argv[0]} exited {done.status}")
    return done.wall_s, done.cpu_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=600)
    parser.add_argument("--rollouts", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900.0, help="longest wait for the collector's rest")
    args = parser.parse_args()
    if not CCUSAGE.exists():
        print(f"no ccusage at {CCUSAGE}: run scripts/test once (it installs the pinned clients)")
        return 1
    print(f"Machine: {machine_line()}")
    with isolated_home("lunavect-peer-") as env:
        history = build(
            shared_data(), Path(env["CLAUDE_CONFIG_DIR"]), Path(env["CODEX_HOME"]), args.sessions, args.rollouts
        )
        files = sorted(str(p) for p in Path(env["HOME"]).rglob("*.jsonl"))
        gb = history.bytes / 2**30
        print(f"history: {args.sessions} Claude + {args.rollouts} Codex sessions, {history.bytes / 2**20:.0f} MB")
        tree = Tree("this checkout", os.path.join(REPO, "src"))
        compile_tree(tree.src)
        tree.env = dict(env, PYTHONPATH=tree.src, LUNAVECT_HOME=tempfile.mkdtemp(prefix="lv-", dir=env["HOME"]))
        peer = [str(CCUSAGE), "daily", "--json", "--offline"]
        sessions, transcripts = len(history.claude) + len(history.codex), len(history.claude)
        cold: dict[str, list[float]] = {"ccusage": [], "lunavect": [], "cat": [], "wc -l": []}
        again: dict[str, list[float]] = {"ccusage": [], "lunavect usage": []}
        for run in range(args.runs):
            steps = ["ccusage", "lunavect", "floor"]
            for step in steps[run % 3 :] + steps[: run % 3]:
                if step == "ccusage":
                    cold["ccusage"].append(timed(peer, env)[1])
                elif step == "lunavect":
                    cold["lunavect"].append(cold_start(tree, files, sessions, transcripts, args.timeout).cpu_s)
                else:
                    cold["cat"].append(timed(["cat", *files], env)[1])
                    cold["wc -l"].append(timed(["wc", "-l", *files], env)[1])
            print(f"  run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f} CPU-s" for k, v in cold.items()), flush=True)
        lunavect(tree, "list", "--json")  # the collector runs again, over the store the last cold start left
        proc = collector(Path(tree.env["LUNAVECT_HOME"]))
        time.sleep(2.0)
        for run in range(args.runs * 3):
            pair = [("ccusage", peer), ("lunavect usage", [sys.executable, "-m", "lunavect", "usage"])]
            for name, argv in pair[run % 2 :] + pair[: run % 2]:
                again[name].append(timed(argv, tree.env if name.startswith("lunavect") else env)[0])
        stop(proc)
        print()
        print(
            md_table(
                ["cold, over the whole history", "CPU-s per GB, median", "x `wc -l`"],
                [
                    [
                        name,
                        f"{statistics.median(v) / gb:.2f}",
                        f"{statistics.median(v) / statistics.median(cold['wc -l']):.1f}x",
                    ]
                    for name, v in cold.items()
                ],
            )
        )
        ccusage_again = statistics.median(again["ccusage"])
        print()
        print(
            md_table(
                ["answering again", "wall, median", "x ccusage"],
                [
                    [name, f"{statistics.median(v):.2f} s", f"{statistics.median(v) / ccusage_again:.2f}x"]
                    for name, v in again.items()
                ],
            )
        )
        ratio = statistics.median(cold["lunavect"]) / statistics.median(cold["ccusage"])
        print(f"\nlunavect's collector / ccusage, cold CPU: {ratio:.2f}x (goal: at most 1.00x)")
        print(
            f"lunavect usage / ccusage, again: {statistics.median(again['lunavect usage']) / ccusage_again:.3f}x (goal: at most 0.10x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
