"""A heavy user's history, end to end: what the collector's first start costs per GB, and what it costs at rest.

Builds a history of N Claude Code sessions (copies of the real transcripts of `shared/data`, about 1 MB each on
average, 50 project folders, dated back over a year) and `--rollouts` Codex rollouts over 31 days
(bench/_history.py: fresh ids, nothing else synthesised), in a temporary home deleted at the end. Then, for each
tree (this checkout, and with `--baseline` another checkout's `src/` run the same way, interleaved round-robin
with a rotating start), `--runs` times with a fresh store:

- **first start to rest**: the first `lunavect list --json` starts a real collector (`python -m lunavect
  daemon`, as a person's first command does); its CPU time (all threads, from /proc) is read from its start until
  it rests: every session listed, every transcript read whole, and less than 10 ms of CPU over 2 s. Reported as
  CPU-seconds per GB of history and MB of history per CPU-second, beside the CPU time of `wc -l` over the very
  same files in the same round, with the load average at the start and end of each run;
- **a hook event during the whole reads** (`--probe`): in one more cold start per tree, the installed hook
  shim sends a PreToolUse naming a new tool for a probe session every 0.3 s while the collector reads the
  history, timed until the store's snapshot shows it (read-only, polled every 2 ms), and the progress `lunavect
  doctor --json` reports meanwhile;
- **at rest**: the collector's CPU over `--idle` seconds with nobody listening, then with a front end listening
  (`lunavect status --follow`, subscribed to the change feed), beside an idle `sleep`;
- **commands**: `list --json`, `counts --json` and `status` against `lunavect --version`, interleaved (`--rounds`).

Each size on its own (3,000 sessions write about 3 GB in the temporary folder; the script checks the space):

    .venv/bin/python bench/scale.py --sessions 100 --runs 5 --baseline /tmp/<baseline checkout>/src
    .venv/bin/python bench/scale.py --sessions 1000 --runs 3 --baseline /tmp/<baseline checkout>/src
    .venv/bin/python bench/scale.py --sessions 3000 --runs 3 --baseline /tmp/<baseline checkout>/src
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
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import REPO, compile_tree, hook_payload, isolated_home, machine_line, md_table, shared_data, thread_cpu_s  # noqa: E402
from _history import build  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "src"))
import psutil  # noqa: E402

LOCK_FILE = "collector.lock"
STORE_FILE = "lunavect.sqlite3"
PROBE_SESSION = "5e55105e-0000-4000-8000-00000000c0de"


@dataclass
class Tree:
    name: str
    src: str
    env: dict[str, str] = field(default_factory=dict)


def lunavect(tree: Tree, *args: str, check: bool = True) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=tree.env, capture_output=True, text=True, check=check
    )
    return time.perf_counter() - start, done.stdout


def cpu_s(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def collector(data_dir: Path, timeout: float = 10.0) -> psutil.Process:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid = int((data_dir / LOCK_FILE).read_text().strip() or 0)
        except (OSError, ValueError):
            pid = 0
        if pid:
            return psutil.Process(pid)
        time.sleep(0.02)
    raise RuntimeError("no collector started")


def store_counts(store_path: Path) -> tuple[int, int]:
    """(sessions listed, transcripts read whole), read-only as a front end reads."""
    try:
        conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0, 0
    try:
        (listed,) = conn.execute("SELECT count(*) FROM snapshot WHERE listed = 1").fetchone()
        (whole,) = conn.execute(
            "SELECT count(*) FROM claude_transcript WHERE NOT coalesce(json_extract(cursor, '$.partial'), 0)"
        ).fetchone()
    except sqlite3.Error:
        return 0, 0
    finally:
        conn.close()
    return listed, whole


def wait_rest(
    proc: psutil.Process, store_path: Path, sessions: int, transcripts: int, timeout: float
) -> tuple[float, float]:
    """Seconds until every session is listed, and until every transcript is read whole and the collector's CPU
    grew less than 10 ms over 2 s; NaN on timeout."""
    start = time.monotonic()
    all_listed = float("nan")
    while time.monotonic() - start < timeout:
        listed, whole = store_counts(store_path)
        if listed >= sessions and all_listed != all_listed:
            all_listed = time.monotonic() - start
        if listed >= sessions and whole >= transcripts:
            before = cpu_s(proc)
            time.sleep(2.0)
            if cpu_s(proc) - before < 0.010:
                return all_listed, time.monotonic() - start - 2.0
        else:
            time.sleep(0.1)
    return all_listed, float("nan")


def wc_cpu(files: list[str]) -> float:
    """CPU seconds of `wc -l` over the files (the page cache already holds them)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["wc", "-l", *files], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fresh(tree: Tree) -> Path:
    """Stop nothing (the caller did), delete the store: the next command meets a first start."""
    data_dir = Path(tree.env["LUNAVECT_HOME"])
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(mode=0o700)
    return data_dir


def stop(proc: psutil.Process) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except psutil.TimeoutExpired:
        proc.kill()


@dataclass
class Cold:
    first_list_s: float
    cpu_s: float
    listed_s: float  # from the first list's start until every session is listed
    rest_s: float
    wc_s: float
    load_start: str
    load_end: str


def cold_start(tree: Tree, files: list[str], sessions: int, transcripts: int, timeout: float) -> Cold:
    data_dir = fresh(tree)
    wc = wc_cpu(files)
    start_load = load()
    first, _ = lunavect(tree, "list", "--json")
    proc = collector(data_dir)
    listed, rest = wait_rest(proc, data_dir / STORE_FILE, sessions, transcripts, timeout)
    used = cpu_s(proc)
    stop(proc)
    return Cold(first, used, first + listed, first + rest, wc, start_load, load())


def hook_probe(
    tree: Tree, sessions: int, transcripts: int, timeout: float, at_rest: int = 15
) -> tuple[list[float], list[float], list[str]]:
    """Hook event to snapshot latencies (s) while the whole reads run, then `at_rest` more once the collector
    rests (the reference), and the progress doctor reported meanwhile."""
    data_dir = fresh(tree)
    command = _hook_command(tree)
    store_path = data_dir / STORE_FILE
    lunavect(tree, "list", "--json")
    proc = collector(data_dir)
    latencies: list[float] = []
    resting: list[float] = []
    progress: list[str] = []
    start = time.monotonic()
    index = 0
    while time.monotonic() - start < timeout and len(resting) < at_rest:
        listed, whole = store_counts(store_path)
        reading = not (whole >= transcripts and listed >= sessions)
        if not reading and not resting:
            time.sleep(3.0)  # the last whole read's tick ends; then the collector rests
        index += 1
        tool = f"Probe{index}"
        payload = hook_payload("PreToolUse", PROBE_SESSION, tree.env["HOME"])
        payload.update(tool_name=tool, tool_input={"command": "true"}, tool_use_id=f"toolu_probe{index}")
        sent = time.monotonic()
        subprocess.run(command, shell=True, input=json.dumps(payload).encode(), env=tree.env, check=False)
        while time.monotonic() - sent < 5.0:
            if _shows(store_path, tool):
                (latencies if reading else resting).append(time.monotonic() - sent)
                break
            time.sleep(0.002)
        if reading and index % 10 == 1:
            _, out = lunavect(tree, "doctor", "--json", check=False)
            progress.append(_progress_of(out))
        time.sleep(0.3)
    # The probe session ends, as a real one does: a session left working keeps the collector ticking every
    # second, and the rest measured next (on this store) would be that, not a collector at rest.
    payload = hook_payload("SessionEnd", PROBE_SESSION, tree.env["HOME"])
    payload["reason"] = "prompt_input_exit"
    subprocess.run(command, shell=True, input=json.dumps(payload).encode(), env=tree.env, check=False)
    time.sleep(2.0)
    stop(proc)
    return latencies, resting, progress


def _hook_command(tree: Tree) -> str:
    """The installed hook command, as `hooks install` writes it for the tree under test."""
    lunavect(tree, "hooks", "install", check=False)
    settings = json.loads((Path(tree.env["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())
    for group in settings["hooks"]["PreToolUse"]:
        for handler in group["hooks"]:
            if "lunavect" in handler.get("command", ""):
                return handler["command"]
    raise RuntimeError("no hook command installed")


def _shows(store_path: Path, tool: str) -> bool:
    try:
        conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute(
                "SELECT json_extract(data, '$.activity') FROM snapshot WHERE id = ?", (f"claude:{PROBE_SESSION}",)
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return row is not None and row[0] is not None and tool in str(row[0])


def _progress_of(doctor_json: str) -> str:
    try:
        report = json.loads(doctor_json)
    except ValueError:
        return "?"
    reading = report.get("collector", {}).get("reading")
    return reading if isinstance(reading, str) else "-"


def idle_costs(tree: Tree, seconds: float) -> tuple[float, float, float, float]:
    """(collector CPU % with nobody listening, with `status --follow` listening, idle `sleep` %, RSS MB), each
    process's time on a CPU in nanoseconds."""
    data_dir = Path(tree.env["LUNAVECT_HOME"])
    lunavect(tree, "list", "--json")
    proc = collector(data_dir)
    time.sleep(15.0)  # a collector started on a full store looks at everything once (its first sweep): let it
    sleeper = subprocess.Popen(["sleep", str(2 * seconds + 30)])
    s0, c0 = thread_cpu_s(sleeper.pid), thread_cpu_s(proc.pid)
    time.sleep(seconds)
    alone = 100 * (thread_cpu_s(proc.pid) - c0) / seconds
    follower = subprocess.Popen(
        [sys.executable, "-m", "lunavect", "status", "--follow"], env=tree.env, stdout=subprocess.DEVNULL
    )
    time.sleep(3.0)
    c1 = thread_cpu_s(proc.pid)
    time.sleep(seconds)
    listening = 100 * (thread_cpu_s(proc.pid) - c1) / seconds
    sleep_pct = 100 * (thread_cpu_s(sleeper.pid) - s0) / (2 * seconds + 3)
    rss = proc.memory_info().rss / 2**20
    follower.terminate()
    follower.wait(10)
    sleeper.kill()
    sleeper.wait()
    stop(proc)
    return alone, listening, sleep_pct, rss


def cli_times(tree: Tree, rounds: int) -> dict[str, float]:
    variants = {
        "--version": ["--version"],
        "list --json": ["list", "--json"],
        "counts --json": ["counts", "--json"],
        "status": ["status"],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    lunavect(tree, "list", "--json")  # the collector runs, as it does for a person's commands
    proc = collector(Path(tree.env["LUNAVECT_HOME"]))
    time.sleep(2.0)
    for round_ in range(rounds):
        names = list(variants)
        names = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in names:
            times[name].append(lunavect(tree, *variants[name])[0])
    stop(proc)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--rollouts", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3, help="cold starts per tree")
    parser.add_argument("--baseline", help="another checkout's src/ folder, run side by side")
    parser.add_argument("--timeout", type=float, default=900.0, help="longest wait for rest")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of each idle window; 0 skips")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the command timings; 0 skips")
    parser.add_argument("--no-probe", action="store_true", help="skip the hook events during the whole reads")
    args = parser.parse_args()
    data_dir = shared_data()
    need = (args.sessions * 1.1 + args.rollouts * 0.5 + 512) * 2**20
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free < need:
        print(f"not enough free space in {tempfile.gettempdir()}: {free >> 20} MB, need {int(need) >> 20} MB")
        return 1
    print(f"Machine: {machine_line()}")
    with isolated_home("lunavect-scale-") as env:
        built = time.perf_counter()
        history = build(data_dir, Path(env["CLAUDE_CONFIG_DIR"]), Path(env["CODEX_HOME"]), args.sessions, args.rollouts)
        files = [str(p) for p in Path(env["HOME"]).rglob("*.jsonl")]
        gb = history.bytes / 2**30
        print(
            f"history: {args.sessions} Claude + {args.rollouts} Codex sessions, {history.bytes / 2**20:.0f} MB in"
            f" {len(files)} files, built in {time.perf_counter() - built:.1f} s"
        )
        trees = [Tree("this checkout", os.path.join(REPO, "src"))]
        if args.baseline:
            trees.append(Tree("baseline", os.path.abspath(args.baseline)))
        for tree in trees:  # each its own data folder in the temporary home, the history shared
            compile_tree(tree.src)
            tree.env = dict(env, PYTHONPATH=tree.src, LUNAVECT_HOME=tempfile.mkdtemp(prefix="lv-", dir=env["HOME"]))
        sessions, transcripts = len(history.claude) + len(history.codex), len(history.claude)
        cold: dict[str, list[Cold]] = {tree.name: [] for tree in trees}
        for run in range(args.runs):
            order = trees[run % len(trees) :] + trees[: run % len(trees)]
            for tree in order:
                found = cold_start(tree, files, sessions, transcripts, args.timeout)
                cold[tree.name].append(found)
                print(
                    f"  run {run + 1}, {tree.name}: collector {found.cpu_s:.2f} CPU-s ({gb * 1024 / found.cpu_s:.0f}"
                    f" MB/CPU-s), wc -l {found.wc_s:.2f} CPU-s, rest after {found.rest_s:.1f} s,"
                    f" load {found.load_start} -> {found.load_end}",
                    flush=True,
                )
        rows = []
        for tree in trees:
            runs = cold[tree.name]
            cpu = statistics.median(r.cpu_s for r in runs)
            wc = statistics.median(r.wc_s for r in runs)
            rows.append(
                [
                    tree.name,
                    f"{cpu / gb:.2f} ({min(r.cpu_s for r in runs) / gb:.2f}-{max(r.cpu_s for r in runs) / gb:.2f})",
                    f"{gb * 1024 / cpu:.0f}",
                    f"{wc / gb:.3f}",
                    f"{cpu / wc:.0f}x",
                    f"{statistics.median(r.first_list_s for r in runs):.2f}",
                    f"{statistics.median(r.listed_s for r in runs):.1f}",
                    f"{statistics.median(r.rest_s for r in runs):.1f}",
                    ", ".join(f"{r.load_start}-{r.load_end}" for r in runs),
                ]
            )
        print()
        print(
            md_table(
                [
                    "tree",
                    "collector CPU-s per GB, median (range)",
                    "MB per CPU-s",
                    "`wc -l` CPU-s per GB",
                    "collector / `wc -l`",
                    "first `list` s",
                    "all listed after s",
                    "rest after s",
                    "load average (start-end of each run)",
                ],
                rows,
            )
        )
        if len(trees) == 2:
            ratio = statistics.median(r.cpu_s for r in cold[trees[0].name]) / statistics.median(
                r.cpu_s for r in cold[trees[1].name]
            )
            print(f"\nthis checkout / baseline, collector CPU (medians): {ratio:.2f}x")
        if not args.no_probe:
            print()
            probe_rows = []
            for tree in trees:
                latencies, resting, progress = hook_probe(tree, sessions, transcripts, args.timeout)
                for when, found in (("during the whole reads", latencies), ("at rest after", resting)):
                    if found:
                        probe_rows.append(
                            [
                                f"{tree.name}, {when}",
                                str(len(found)),
                                f"{1000 * statistics.median(found):.0f}",
                                f"{1000 * statistics.quantiles(found, n=20, method='inclusive')[18]:.0f}"
                                if len(found) > 1
                                else "-",
                                f"{1000 * max(found):.0f}",
                                "; ".join(dict.fromkeys(progress)) or "-" if when.startswith("during") else "",
                            ]
                        )
            print(
                md_table(
                    ["tree", "hook events", "to snapshot median ms", "p95 ms", "max ms", "doctor said meanwhile"],
                    probe_rows,
                )
            )
        if args.idle:
            print()
            idle_rows = []
            for tree in trees:
                alone, listening, sleeper, rss = idle_costs(tree, args.idle)
                idle_rows.append([tree.name, f"{alone:.3f} %", f"{listening:.3f} %", f"{sleeper:.3f} %", f"{rss:.0f}"])
            print(
                md_table(
                    ["tree", "collector at rest", "with `status --follow` listening", "idle `sleep`", "RSS MB"],
                    idle_rows,
                )
            )
        if args.rounds:
            print()
            cli_rows = []
            for tree in trees:
                times = cli_times(tree, args.rounds)
                cli_rows.append([tree.name, *(f"{1000 * v:.0f}" for v in times.values())])
            print(
                md_table(["tree (median ms)", "`--version`", "`list --json`", "`counts --json`", "`status`"], cli_rows)
            )
    print(f"\nMachine at the end: {machine_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
