"""Flat in history: what `counts`, `status` and `next --print` cost with 100 stored sessions and with 50,000.

A bar or a tmux key runs these every second, so their cost must not grow with a person's history. Two homes are
made side by side, each with a store of N listed sessions written as the collector writes its snapshot (the
same mix in both: a few working, waiting for a permission or an answer, failed; the rest ready or idle, as a
long history is), and a collector running on each, at rest. Then each command runs `--rounds` times in each
home, interleaved round-robin with a rotating start beside `lunavect --version` (the floor: the interpreter
and the command line alone), and the median wall time and the largest peak RSS of each are reported, with the
ratio of the big home's median to the small one's.

    .venv/bin/python bench/flat.py --small 100 --large 50000 --rounds 15
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datetime import UTC

from _benchlib import REPO, home_folders, machine_line, md_table, run_timed  # noqa: E402

COMMANDS = {
    "--version": ["--version"],
    "counts": ["counts"],
    "status": ["status"],
    "next --print": ["next", "--print"],
}
# One in a hundred sessions works or waits; the rest are a history of finished turns.
LIVE_MIX = ("working", "permission", "input", "error", "background")


def seed(sessions: int) -> None:
    """Write `sessions` listed rows into this environment's store, as the collector's snapshot holds them."""
    from datetime import datetime

    import msgspec

    from lunavect import store
    from lunavect.core.model import Session

    def iso(t: float) -> str:
        return datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")

    now = time.time()
    conn = store.connect()
    with store.transaction(conn):
        for i in range(sessions):
            live = i % 100 == 0
            state = LIVE_MIX[(i // 100) % len(LIVE_MIX)] if live else ("ready" if i % 3 else "idle")
            at = now - i * 97
            session = Session(
                id=f"claude:{i:08d}-5eed-4000-8000-000000000000",
                provider="claude",
                session_id=f"{i:08d}-5eed-4000-8000-000000000000",
                title=f"task {i}",
                project=f"project-{i % 50}",
                cwd=f"/work/project-{i % 50}",
                host="bench",
                state=state,  # type: ignore[arg-type]
                activity="Bash" if state == "working" else None,
                since=iso(at - 30),
                background={},
                error="rate_limit" if state == "error" else None,
                pinned=False,
                hidden=False,
                resume=None,
                basis=["hook"],
                updated=iso(at),
                last_active=iso(at),
                open=live,
            )
            conn.execute(
                "INSERT OR REPLACE INTO snapshot (id, state, listed, data, updated) VALUES (?, ?, 1, ?, ?)",
                (session.id, state, msgspec.json.encode(session).decode(), at),
            )


def run(env: dict[str, str], args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one lunavect command."""
    done = run_timed([sys.executable, "-m", "lunavect", *args], env)
    return done.wall_s, done.peak_mb


def stop_collector(env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "lunavect", "daemon", "stop"], env=env, capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    root = tempfile.mkdtemp(prefix="lunavect-flat-")
    homes: dict[int, dict[str, str]] = {}
    try:
        for size in (options.small, options.large):
            env = dict(os.environ)
            env.update(home_folders(os.path.join(root, str(size))))
            env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "src"), os.path.dirname(os.path.abspath(__file__))])
            subprocess.run([sys.executable, "-c", _SEED, str(size)], env=env, check=True)
            run(env, ["counts"])  # starts this home's collector, as a person's first command does
            homes[size] = env
        time.sleep(3.0)  # both collectors at rest
        times: dict[tuple[int, str], list[float]] = {(size, name): [] for size in homes for name in COMMANDS}
        peaks = {(size, name): 0.0 for size in homes for name in COMMANDS}
        order = [(size, name) for name in COMMANDS for size in homes]
        for round_ in range(options.rounds):
            shift = round_ % len(order)
            for size, name in order[shift:] + order[:shift]:
                wall, peak = run(homes[size], COMMANDS[name])
                times[size, name].append(wall)
                peaks[size, name] = max(peaks[size, name], peak)
        rows = []
        for name in COMMANDS:
            small = statistics.median(times[options.small, name])
            large = statistics.median(times[options.large, name])
            rows.append(
                [
                    f"`{name}`",
                    f"{small * 1000:.0f} ms, {peaks[options.small, name]:.0f} MB",
                    f"{large * 1000:.0f} ms, {peaks[options.large, name]:.0f} MB",
                    f"{large / small:.2f}x",
                ]
            )
        print(machine_line())
        print(f"{options.rounds} rounds, medians, interleaved; peak RSS the largest of the rounds")
        print(
            md_table(["command", f"{options.small:,} sessions", f"{options.large:,} sessions", "large / small"], rows)
        )
    finally:
        for env in homes.values():
            stop_collector(env)
        shutil.rmtree(root, ignore_errors=True)
    return 0


# Run in the home's own environment (its LUNAVECT_HOME), so the store it writes is that home's.
_SEED = "import sys; from flat import seed; seed(int(sys.argv[1]))"


if __name__ == "__main__":
    raise SystemExit(main())
