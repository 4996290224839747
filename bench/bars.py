"""Status bars and tmux: CPU while nothing changes, and the time from a change to the tmux option.

Everything runs for real, side by side, in temporary homes:

- CPU (per second of wall time, all threads, /proc/<pid>/task/*/schedstat) over the same windows while nothing
  changes: `sleep` is the baseline; `status --follow` is a bar's persistent script; the collector of a home
  whose tmux integration is on (a tmux server runs in its socket folder and `lunavect tmux install` was run) is
  measured against the collector of a home where it is off, so their difference is what publishing costs.
- Latency: a hook event alternately starts and ends a turn (working 1 / 0); after the hook returns, the script
  reads `tmux show-options -gv @lunavect_working` until it shows the new count, and reads the line that
  `status --follow` prints for the same change (its own baseline: the change feed alone).

Usage: .venv/bin/python bench/bars.py [--window 15] [--rounds 3] [--changes 30]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import isolated_home, machine_line, md_table, p90  # noqa: E402
from panel import measure_cpu  # noqa: E402

LUNAVECT = [sys.executable, "-m", "lunavect"]


def lunavect(env: dict[str, str], *args: str) -> str:
    return subprocess.run([*LUNAVECT, *args], env=env, capture_output=True, text=True, check=True).stdout


def collector_pid(env: dict[str, str]) -> int:
    return int((Path(env["LUNAVECT_HOME"]) / "collector.lock").read_text().strip())


def hook(env: dict[str, str], event: str) -> None:
    payload = {"session_id": "bench-bars", "hook_event_name": event, "cwd": "/tmp/bench", "prompt": "x"}
    subprocess.run([*LUNAVECT, "hook", "claude"], input=json.dumps(payload).encode(), env=env, check=True)


def tmux_value(env: dict[str, str], option: str) -> str:
    return subprocess.run(
        ["tmux", "-L", "bench", "show-options", "-gqv", option], env=env, capture_output=True, text=True
    ).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--changes", type=int, default=30)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed")

    with isolated_home("lv-bench-bars-off-") as off_env, tempfile.TemporaryDirectory(prefix="lv-bench-t-") as tdir:
        off_env = dict(off_env)
        with isolated_home("lv-bench-bars-on-") as on_env:
            on_env = {**on_env, "TMUX_TMPDIR": tdir}
            on_env.pop("TMUX", None)
            os.makedirs(os.path.join(tdir, f"tmux-{os.getuid()}"), mode=0o700)
            subprocess.run(["tmux", "-L", "bench", "-f", "/dev/null", "new-session", "-d", "sh"], env=on_env)
            sleeper = subprocess.Popen(["sleep", "100000"])
            follow = subprocess.Popen(
                [*LUNAVECT, "status", "--follow", "--format", "plain"], env=on_env, stdout=subprocess.PIPE
            )
            try:
                lunavect(off_env, "list")
                lunavect(on_env, "tmux", "install")
                assert follow.stdout is not None
                follow.stdout.readline()
                time.sleep(2)
                cpu = measure_cpu(
                    {
                        "sleep (baseline)": sleeper.pid,
                        "status --follow": follow.pid,
                        "collector, tmux off": collector_pid(off_env),
                        "collector, tmux on (1 server)": collector_pid(on_env),
                    },
                    args.window,
                    args.rounds,
                )
                to_tmux: list[float] = []
                to_line: list[float] = []
                for index in range(args.changes):
                    event, value = ("UserPromptSubmit", "1") if index % 2 == 0 else ("Stop", "0")
                    hook(on_env, event)
                    start = time.monotonic()
                    seen_tmux = seen_line = None
                    while seen_tmux is None or seen_line is None:
                        now = time.monotonic()
                        assert now - start < 30, "no change seen"
                        if seen_tmux is None and tmux_value(on_env, "@lunavect_working") == value:
                            seen_tmux = time.monotonic() - start
                        if seen_line is None and select.select([follow.stdout], [], [], 0.001)[0]:
                            line = follow.stdout.readline().decode()
                            if f"working {value}" in line:
                                seen_line = time.monotonic() - start
                    to_tmux.append(seen_tmux)
                    to_line.append(seen_line)
            finally:
                follow.terminate()
                sleeper.terminate()
                subprocess.run(["tmux", "-L", "bench", "kill-server"], env=on_env, capture_output=True)
                for env in (on_env, off_env):
                    try:
                        os.kill(collector_pid(env), 15)
                    except (OSError, ValueError):
                        pass

    print(machine_line())
    print(f"\nCPU while nothing changes ({args.rounds} windows of {args.window:.0f} s):\n")
    rows = [[name, f"{statistics.median(v) * 100:.3f} %", f"{max(v) * 100:.3f} %"] for name, v in cpu.items()]
    print(md_table(["process", "CPU (median)", "CPU (max)"], rows))
    print(f"\nFrom the hook's return to the change shown ({args.changes} changes):\n")
    rows = [
        [name, f"{statistics.median(v) * 1000:.0f} ms", f"{p90(v) * 1000:.0f} ms"]
        for name, v in (("status --follow line", to_line), ("tmux option @lunavect_working", to_tmux))
    ]
    print(md_table(["shown by", "median", "p90"], rows))


if __name__ == "__main__":
    main()
