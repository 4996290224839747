"""What the status-line wrapper (`lunavect hooks install --statusline`) adds to each redraw of Claude Code's
status line, and what the notifier's look at the rate-limit windows costs.

1. Claude Code runs its status-line command through `/bin/sh -c` with a JSON object on stdin at each redraw.
   Two commands a person might have (a shell one-liner and a Python script that reads the JSON), each run
   bare and wrapped by lunavect's wrapper (which records the input's `rate_limits`, then runs the person's
   command with the same stdin), interleaved round-robin: wall time from spawn to exit and the CPU time of
   the whole process tree.
2. `notify.usage.due` as the collector's notifier calls it after each batch and every 15 s: one Codex
   account in the store and Claude Code's windows in the wrapper's file, every window past the threshold
   already warned (the usual look that finds nothing to say).

    .venv/bin/python bench/statusline.py [--rounds 41]

Not a test: prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, isolated_home, machine_line, md_table, ms, p90, spawn_timed  # noqa: E402

sys.path.insert(0, SRC)


def payload(now: float) -> bytes:
    """A status-line input of the size Claude Code 2.1.328 sends (about 1.5 KB), with rate limits."""
    return json.dumps(
        {
            "session_id": "5b5934d4-12f8-4af4-a6ff-c0149c434ee5",
            "transcript_path": "/home/u/.claude/projects/-home-u-work/5b5934d4-12f8-4af4-a6ff-c0149c434ee5.jsonl",
            "cwd": "/home/u/work",
            "effort": {"level": "medium"},
            "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
            "workspace": {"current_dir": "/home/u/work", "project_dir": "/home/u/work", "added_dirs": []},
            "version": "2.1.328",
            "output_style": {"name": "default"},
            "cost": {"total_cost_usd": 0.0567, "total_duration_ms": 3502, "total_api_duration_ms": 39},
            "context_window": {
                "total_input_tokens": 14144,
                "total_output_tokens": 5,
                "context_window_size": 1000000,
                "current_usage": {"input_tokens": 14144, "output_tokens": 5},
                "used_percentage": 1,
                "remaining_percentage": 99,
            },
            "rate_limits": {
                "five_hour": {"used_percentage": 42.0, "resets_at": int(now) + 3600},
                "seven_day": {"used_percentage": 8.0, "resets_at": int(now) + 5 * 86400},
            },
            "exceeds_200k_tokens": False,
            "fast_mode": False,
            "thinking": {"enabled": True},
        }
    ).encode()


PERSON_SCRIPT = (
    "import json, sys\n"
    "j = json.load(sys.stdin)\n"
    "print(f\"{j['model']['display_name']} {j['context_window']['used_percentage']} %\")\n"
)


def wrapper_cost(root: Path, rounds: int, env: dict[str, str]) -> list[list[str]]:
    from lunavect.install.statusline import wrapper_command

    script = root / "my-status.py"
    script.write_text(PERSON_SCRIPT)
    commands = {
        "shell one-liner (`cat >/dev/null; printf ...`)": "cat >/dev/null; printf 'mine'",
        "Python script reading the JSON": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
    }
    data = payload(time.time())
    rows = []
    with open(os.devnull, "wb") as sink:
        for name, person in commands.items():
            bare = ["/bin/sh", "-c", person]
            wrapped = ["/bin/sh", "-c", wrapper_command(person)]
            times: dict[str, list[tuple[float, float]]] = {"bare": [], "wrapped": []}
            for index in range(rounds):
                for which in ("bare", "wrapped") if index % 2 == 0 else ("wrapped", "bare"):
                    run = spawn_timed(bare if which == "bare" else wrapped, data, env, sink.fileno())
                    assert run.status == 0, (which, run.status)
                    times[which].append((run.wall_s, run.cpu_s))
            walls = {k: [w for w, _ in v] for k, v in times.items()}
            cpus = {k: statistics.median(c for _, c in v) for k, v in times.items()}
            base, ours = statistics.median(walls["bare"]), statistics.median(walls["wrapped"])
            rows.append(
                [
                    name,
                    ms(base),
                    ms(ours),
                    ms(p90(walls["wrapped"])),
                    f"{ours / base:.2f}x",
                    ms(ours - base),
                    ms(cpus["wrapped"] - cpus["bare"]),
                ]
            )
        # The wrapper alone (no command of the person's: it only records) beside a bare interpreter start.
        alone = ["/bin/sh", "-c", wrapper_command(None)]
        floor = ["/bin/sh", "-c", f"{shlex.quote(sys.executable)} -I -S -c pass"]
        walls: dict[str, list[float]] = {"floor": [], "alone": []}
        for index in range(rounds):
            for which in ("floor", "alone") if index % 2 == 0 else ("alone", "floor"):
                walls[which].append(spawn_timed(alone if which == "alone" else floor, data, env, sink.fileno()).wall_s)
        base, ours = statistics.median(walls["floor"]), statistics.median(walls["alone"])
        rows.append(
            [
                "none: the wrapper alone, beside `python -I -S -c pass`",
                ms(base),
                ms(ours),
                ms(p90(walls["alone"])),
                f"{ours / base:.2f}x",
                ms(ours - base),
                "",
            ]
        )
    limits_file = Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json"
    assert json.loads(limits_file.read_text())["primary"]["used_percent"] == 42.0  # the wrapper did record
    return rows


def notifier_look(root: Path, rounds: int) -> list[str]:
    from lunavect import store
    from lunavect.notify import usage
    from lunavect.notify.settings import NotifySettings
    from lunavect.usage import limits
    from lunavect.usage.limits import Limits, LimitWindow

    now = time.time()
    conn = store.connect(root / "look.sqlite3")
    with conn:
        limits.record(
            conn,
            "codex",
            Limits(
                at=now, limit_id="codex", primary=LimitWindow(93.0, 300, now + 3600), secondary=LimitWindow(20, 10080)
            ),
        )
    settings = NotifySettings()
    assert len(usage.due(conn, settings, now)) == 1  # Codex's 5 h window; Claude Code's (the wrapper's file) is lower
    looks = []
    for _ in range(rounds * 10):
        started = time.perf_counter()
        found = usage.due(conn, settings, now)
        looks.append(time.perf_counter() - started)
        assert found == []
    conn.close()
    return ["one look, nothing new to warn of", f"{statistics.median(looks) * 1e6:.0f}", f"{p90(looks) * 1e6:.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lunavect-bench-statusline-") as folder, isolated_home("sl") as env:
        root = Path(folder)
        wrapper_rows = wrapper_cost(root, args.rounds, env)
        look_row = notifier_look(root, args.rounds)
    print(machine_line())
    print()
    print(
        md_table(
            [
                "person's status line",
                "bare (median ms)",
                "wrapped (median ms)",
                "p90",
                "ratio",
                "added ms",
                "added CPU ms",
            ],
            wrapper_rows,
        )
    )
    print()
    print(md_table(["notifier's usage look", "median µs", "p90 µs"], [look_row]))


if __name__ == "__main__":
    main()
