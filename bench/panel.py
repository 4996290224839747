"""The panel: CPU of an idle panel showing 1,000 sessions, and the time from a state change in the store to
the redrawn row on a real terminal.

Every panel runs for real, in its own pane of a private tmux server (120x40), each with its own temporary
LUNAVECT_HOME and a store seeded directly with snapshot rows, and each with the collector it starts, as a person
runs it (the collector ticks every second and has no facts of the seeded sessions, so it leaves their rows as
they are). They all run at the same time, so load on the machine hits them alike:

- CPU: `baseline` is a minimal Textual app (one line of text); `empty` is the panel with no session;
  `1000 finished` shows 1,000 sessions none of which has a running timer; `1000 working` shows 1,000 sessions
  of which 100 work (their timers tick, and the screen is full of them). CPU is each process's time on a CPU
  (all threads, from /proc/<pid>/task/*/schedstat) over the same windows, per second of wall time; the
  collector of the empty panel is measured alongside.
- Latency: one pinned row at the top alternates between working and ready, committed by this script (another
  process, as when a session is pinned elsewhere: the collector passes the commit on to the panel); after each
  commit the script reads the pane (`tmux capture-pane`) until the row shows the new state. `10 sessions` is the baseline for
  `1000 sessions`; the changes alternate between the two panels.

- Scale (issue "thousands of past sessions"): `100` is the baseline for `3000` (finished sessions, each home with
  its running collector): the first paint (from starting the panel to its newest row on the pane, the first
  start of each home left out since it also starts the collector), the filters (from the key to the pane showing
  the filtered list: Awaiting input on and off, a search that matches nothing and its removal), and
  `lunavect list --json` and `counts --json` (wall time of the command); the idle CPU of the panel with 3,000
  sessions joins the CPU table.

Usage: .venv/bin/python bench/panel.py [--window 15] [--rounds 3] [--changes 30] [--starts 5] [--commands 7]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import REPO, compile_tree, iso_ms, isolated_home, machine_line, md_table, p90, thread_cpu_s  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "src"))
import msgspec  # noqa: E402
import psutil  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.core.model import Session  # noqa: E402
from lunavect.listing import arrangement, changes

WIDTH, HEIGHT = 120, 40
BASELINE_APP = (
    "from textual.app import App\n"
    "from textual.widgets import Static\n"
    "class Baseline(App):\n"
    "    def compose(self):\n"
    "        yield Static('baseline: an idle Textual app')\n"
    "Baseline().run()\n"
)
PANEL_APP = "from lunavect.frontends.tui import PanelApp\nPanelApp().run()\n"
FINISHED = ("ready", "idle", "error")
WORKING = ("working", "background", "compacting", "permission", "input")


def session(sid: str, state: str, now: float, age: float) -> Session:
    works = state in WORKING
    return Session(
        id=f"claude:{sid}",
        provider="claude",
        session_id=sid,
        title=f"Benchmark session {sid}",
        project=f"project-{int(sid[1:]) % 17 if sid[1:].isdigit() else 0}",
        cwd="/tmp/bench",
        host="bench",
        state=state,
        activity="Bash" if state == "working" else None,
        since=iso_ms(now - age) if works else None,
        background={"shell": 1} if state == "background" else {},
        error="limit" if state == "error" else None,
        pinned=False,
        hidden=False,
        resume=f"claude --resume {sid}",
        basis=["hook"],
        updated=iso_ms(now - age),
    )


def write(conn, sessions: list[Session]) -> None:
    with store.transaction(conn):
        conn.executemany(
            "INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, ?, 1, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, data = excluded.data, updated = excluded.updated",
            [(s.id, s.state, msgspec.json.encode(s).decode(), time.time()) for s in sessions],
        )


def seed(data: Path, count: int, working: int, probe: bool) -> None:
    """A store in `data` with `count` sessions, `working` of them (the newest) working."""
    os.environ["LUNAVECT_HOME"] = str(data)
    conn = store.connect()
    now = time.time()
    rows = []
    for index in range(count):
        states = WORKING if index < working else FINISHED
        rows.append(session(f"s{index}", states[index % len(states)], now, 5 + index * 7))
    if probe:
        rows.append(session("probe", "ready", now, 1))
    write(conn, rows)
    if probe:
        arrangement.pin(conn, "claude:probe")
    conn.close()


class Tmux:
    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.socket = root / "bench-tmux.sock"
        self.env = env

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
        return result.stdout

    def start(self, name: str, data: Path, code: str) -> int:
        env_args = []
        for key in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
            env_args += ["-e", f"{key}={self.env[key]}"]
        env_args += ["-e", f"LUNAVECT_HOME={data}", "-e", f"PYTHONPATH={os.path.join(REPO, 'src')}"]
        self.run(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            *env_args,
            "--",
            sys.executable,
            "-c",
            code,
        )
        return int(self.run("display-message", "-p", "-t", f"{name}:0.0", "#{pane_pid}").strip())

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", f"{name}:0.0")

    def wait_for(self, name: str, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen(name):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name}: {text!r} not on screen:\n{self.screen(name)}")
            time.sleep(0.1)

    def kill(self) -> None:
        if self.socket.exists():
            self.run("kill-server")


def wait_for_collector(data: Path, timeout: float = 30) -> int:
    """The pid of the collector the panel in `data` started (it holds the lock file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid = int((data / "collector.lock").read_text().strip() or 0)
        except (OSError, ValueError):
            pid = 0
        if pid and psutil.pid_exists(pid):
            return pid
        time.sleep(0.1)
    raise TimeoutError(f"no collector started in {data}")


def cpu_of(pid: int) -> float:
    """Seconds on a CPU of every thread of `pid` (nanoseconds, from schedstat; psutil's ticks as a fallback)."""
    total = thread_cpu_s(pid)
    if total == 0:
        times = psutil.Process(pid).cpu_times()
        return times.user + times.system
    return total


def measure_cpu(pids: dict[str, int], window: float, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per wall second of each process, over the same windows."""
    results: dict[str, list[float]] = {name: [] for name in pids}
    for _ in range(rounds):
        start = {name: cpu_of(pid) for name, pid in pids.items()}
        began = time.monotonic()
        time.sleep(window)
        elapsed = time.monotonic() - began
        for name, pid in pids.items():
            results[name].append((cpu_of(pid) - start[name]) / elapsed)
    return results


def wait_for_row(tmux: Tmux, name: str, label: str, committed: float) -> float:
    """Seconds from `committed` (a perf_counter reading) until the probe row on pane `name` shows `label`,
    reading the pane every 2 ms."""
    while True:
        lines = tmux.screen(name).splitlines()
        row = next((line for line in lines if "Benchmark session probe" in line), "")
        if label in row:
            return time.perf_counter() - committed
        if time.perf_counter() - committed > 10:
            raise TimeoutError(f"{name}: the row did not show {label!r}")
        time.sleep(0.002)


class Notices:
    """A subscriber of one home's change feed beside its panel: when the collector's notifications arrive."""

    def __init__(self, data: Path) -> None:
        self.feed = changes.Feed(path=changes.socket_path(data), version=lambda: 0, stop=threading.Event())
        self.times: list[float] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for _ in self.feed:
            self.times.append(time.perf_counter())

    def first_after(self, moment: float) -> float | None:
        return next((t for t in self.times if t >= moment), None)

    def close(self) -> None:
        self.feed.stop.set()
        self.thread.join(timeout=2)
        self.feed.close()


def measure_latency(
    tmux: Tmux, panels: dict[str, Path], changes_count: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds from a committed state change to the row showing it on the pane, alternating panels; and of
    that, the collector's part (commit to its notification reaching a subscriber beside the panel)."""
    conns = {}
    notices = {}
    for name, data in panels.items():
        os.environ["LUNAVECT_HOME"] = str(data)
        conns[name] = store.connect()
        notices[name] = Notices(data)
    time.sleep(0.5)
    results: dict[str, list[float]] = {name: [] for name in panels}
    noticed: dict[str, list[float]] = {name: [] for name in panels}
    after: dict[str, list[float]] = {name: [] for name in panels}
    state = "ready"
    for number in range(changes_count):
        state = "working" if state == "ready" else "ready"
        label = "Working: Bash" if state == "working" else "Response ready"
        order = list(panels) if number % 2 == 0 else list(reversed(panels))
        for name in order:
            write(conns[name], [session("probe", state, time.time(), 1)])
            committed = time.perf_counter()
            total = wait_for_row(tmux, name, label, committed)
            results[name].append(total)
            notice = notices[name].first_after(committed)
            if notice is not None:
                noticed[name].append(notice - committed)
                after[name].append(total - (notice - committed))
            time.sleep(random.uniform(0.3, 0.6))  # never in step with a 250 ms poll or the collector's tick
    for name, conn in conns.items():
        conn.close()
        notices[name].close()
    return results, {**{f"notice {k}": v for k, v in noticed.items()}, **{f"after {k}": v for k, v in after.items()}}


def wait_screen(tmux: Tmux, name: str, predicate, since: float, timeout: float = 30, what: str = "") -> float:
    """Seconds from `since` (a perf_counter reading) until the pane's text satisfies `predicate`."""
    while True:
        if predicate(tmux.screen(name)):
            return time.perf_counter() - since
        if time.perf_counter() - since > timeout:
            raise TimeoutError(f"{name}: {what} not on screen in {timeout} s:\n{tmux.screen(name)}")
        time.sleep(0.002)


NEWEST_ROW = "Benchmark session s0 "


def measure_first_paint(tmux: Tmux, homes: dict[str, Path], starts: int) -> dict[str, list[float]]:
    """Seconds from starting a panel to its newest row on the pane, alternating homes; the first start of each
    home (which also starts its collector) is left out."""
    results: dict[str, list[float]] = {name: [] for name in homes}
    for number in range(starts + 1):
        order = list(homes) if number % 2 == 0 else list(reversed(homes))
        for name in order:
            pane = f"paint-{name}-{number}"
            began = time.perf_counter()
            tmux.start(pane, homes[name], PANEL_APP)
            took = wait_screen(tmux, pane, lambda text: NEWEST_ROW in text, began, timeout=120)
            if number:
                results[name].append(took)
            tmux.run("kill-session", "-t", pane)
            time.sleep(0.5)
    return results


def measure_filters(tmux: Tmux, panes: dict[str, str], rounds: int) -> dict[str, list[float]]:
    """Seconds from a filter's key to the pane showing its result: Awaiting input on, off; a search that matches
    nothing, and its removal. Alternating panes."""
    # (keys sent first, untimed: the search field takes the focus before the typed keys arrive), timed keys, result.
    steps = (
        ([], ["a"], lambda text: "No session is awaiting input" in text),
        ([], ["a"], lambda text: NEWEST_ROW in text),
        (["/"], ["z", "z", "z"], lambda text: "No session is matching" in text),
        ([], ["BSpace", "BSpace", "BSpace"], lambda text: NEWEST_ROW in text),
    )
    results: dict[str, list[float]] = {name: [] for name in panes}
    for number in range(rounds):
        order = list(panes) if number % 2 == 0 else list(reversed(panes))
        for name in order:
            for before, keys, shown in steps:
                if before:
                    tmux.run("send-keys", "-t", f"{panes[name]}:0.0", *before)
                    time.sleep(0.3)
                began = time.perf_counter()
                tmux.run("send-keys", "-t", f"{panes[name]}:0.0", *keys)
                results[name].append(wait_screen(tmux, panes[name], shown, began, what=" ".join(keys)))
                time.sleep(random.uniform(0.2, 0.4))
            tmux.run("send-keys", "-t", f"{panes[name]}:0.0", "Down")  # leave the search field for the next round
            time.sleep(0.3)
    return results


def measure_commands(homes: dict[str, Path], env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Wall seconds of `lunavect list --json` and `counts --json` in each home (its collector runs)."""
    results: dict[str, list[float]] = {}
    for number in range(runs):
        order = list(homes) if number % 2 == 0 else list(reversed(homes))
        for name in order:
            for command in ("list", "counts"):
                began = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "lunavect", command, "--json"],
                    env={**env, "LUNAVECT_HOME": str(homes[name]), "PYTHONPATH": os.path.join(REPO, "src")},
                    stdout=subprocess.DEVNULL,
                    check=True,
                )
                results.setdefault(f"{command} {name}", []).append(time.perf_counter() - began)
    return results


def summary(values: list[float]) -> tuple[float, float]:
    return statistics.median(values), p90(values)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=15.0, help="seconds per CPU window")
    parser.add_argument("--rounds", type=int, default=3, help="CPU windows")
    parser.add_argument("--changes", type=int, default=30, help="state changes per panel")
    parser.add_argument("--starts", type=int, default=5, help="panel starts per home for the first paint")
    parser.add_argument("--commands", type=int, default=7, help="runs of list/counts per home")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("bench/panel.py needs tmux")

    compile_tree(os.path.join(REPO, "src"))
    with isolated_home("lunavect-bench-panel-") as env:
        root = Path(env["HOME"]).parent
        homes = {name: root / name for name in ("empty", "finished", "working", "small", "h100", "h3000")}
        seed(homes["empty"], 0, 0, probe=False)
        seed(homes["finished"], 1000, 0, probe=False)
        seed(homes["working"], 1000, 100, probe=True)
        seed(homes["small"], 10, 1, probe=True)
        seed(homes["h100"], 100, 0, probe=False)
        seed(homes["h3000"], 3000, 0, probe=False)
        tmux = Tmux(root, env)
        collectors: dict[str, int] = {}
        try:
            pids = {"baseline": tmux.start("baseline", homes["empty"], BASELINE_APP)}
            panels = ("empty", "finished", "working", "small", "h100", "h3000")
            for name in panels:
                pids[name] = tmux.start(name, homes[name], PANEL_APP)
            tmux.wait_for("baseline", "baseline: an idle Textual app")
            for name in panels:
                tmux.wait_for(name, "awaiting input")
            for name in panels:
                collectors[name] = wait_for_collector(homes[name])
            time.sleep(3)  # let every app finish starting
            cpu = measure_cpu(
                {
                    **{k: pids[k] for k in ("baseline", "empty", "finished", "working", "h3000")},
                    "collector": collectors["empty"],
                },
                args.window,
                args.rounds,
            )
            latency, noticed = measure_latency(
                tmux, {"small": homes["small"], "working": homes["working"]}, args.changes
            )
            scale = {"h100": homes["h100"], "h3000": homes["h3000"]}
            filtering = measure_filters(tmux, {"h100": "h100", "h3000": "h3000"}, args.starts)
            commands = measure_commands(scale, env, args.commands)
            paint = measure_first_paint(tmux, scale, args.starts)
        finally:
            tmux.kill()
            for pid in collectors.values():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)

    print(f"Machine: {machine_line()}")
    print(
        f"Command: .venv/bin/python bench/panel.py --window {args.window:g} --rounds {args.rounds} "
        f"--changes {args.changes} --starts {args.starts} --commands {args.commands}\n"
    )
    base = statistics.median(cpu["baseline"])
    labels = {
        "baseline": "baseline (idle Textual app)",
        "empty": "panel, no session",
        "finished": "panel, 1,000 sessions, none working",
        "working": "panel, 1,000 sessions, 100 working (timers tick)",
        "h3000": "panel, 3,000 sessions, none working",
        "collector": "the empty panel's collector",
    }
    rows = []
    for name, label in labels.items():
        median = statistics.median(cpu[name])
        rows.append(
            [label, f"{median * 100:.3f}%", f"{max(cpu[name]) * 100:.3f}%", f"{median / base:.2f}x" if base else "n/a"]
        )
    print("Idle CPU (seconds on a CPU per second of wall time, % of one core):\n")
    print(md_table(["process", "median", "max", "vs baseline"], rows))
    small_median, small_p90 = summary(latency["small"])
    rows = []
    for name, label in (("small", "panel, 10 sessions (baseline)"), ("working", "panel, 1,000 sessions")):
        median, high = summary(latency[name])
        rows.append(
            [
                label,
                f"{median * 1000:.0f}",
                f"{high * 1000:.0f}",
                f"{p95(latency[name]) * 1000:.0f}",
                f"{max(latency[name]) * 1000:.0f}",
                f"{median / small_median:.2f}x",
            ]
        )
    print("\nStore change to redrawn row on the terminal (ms):\n")
    print(md_table(["panel", "median", "p90", "p95", "max", "vs baseline"], rows))
    rows = []
    for name, label in (("small", "panel, 10 sessions"), ("working", "panel, 1,000 sessions")):
        notice, panel_part = noticed[f"notice {name}"], noticed[f"after {name}"]
        if len(notice) < 2:
            continue
        rows.append(
            [
                label,
                f"{statistics.median(notice) * 1000:.0f}",
                f"{p95(notice) * 1000:.0f}",
                f"{statistics.median(panel_part) * 1000:.0f}",
                f"{p95(panel_part) * 1000:.0f}",
            ]
        )
    print("\nOf which the collector's notification (commit to a subscriber beside the panel) and the rest (ms):\n")
    print(md_table(["panel", "notification median", "p95", "notification to row median", "p95"], rows))
    rows = []
    for what, small, large in (
        ("first paint (start to newest row)", paint["h100"], paint["h3000"]),
        ("filters (key to filtered list)", filtering["h100"], filtering["h3000"]),
        ("`list --json`", commands["list h100"], commands["list h3000"]),
        ("`counts --json`", commands["counts h100"], commands["counts h3000"]),
    ):
        base_median, large_median = statistics.median(small), statistics.median(large)
        rows.append(
            [what, f"{base_median * 1000:.0f}", f"{large_median * 1000:.0f}", f"{large_median / base_median:.2f}x"]
        )
    print("\n100 against 3,000 finished sessions (median ms):\n")
    print(md_table(["what", "100 sessions", "3,000 sessions", "ratio"], rows))


if __name__ == "__main__":
    main()
