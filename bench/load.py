"""The collector under load: exactly-once, hook to visible state, its CPU and memory, and its ceiling.

One collector runs in a temporary LUNAVECT_HOME (`python -m lunavect daemon --quiet`). Then:

- idle:   a probe session sends a PreToolUse for a new tool name through the installed hook shim about once
          a second, and the time until the store's `snapshot` shows it is taken (as hook_to_list's sqlite
          variant does): the baseline;
- load:   50 sessions send `--rate` events/s in all (default 200) for `--seconds` (default 60): PreToolUse,
          PostToolUse with a 4-200 KB tool response, Stop with a 4-200 KB last message. Two cores cannot start
          200 hook processes a second beside a collector, so by default (`--driver spool`) `--writers`
          processes run the shim's own `handle` for each event on one shared schedule (bench/load_writer.py:
          the payload parsed, the agent process found, one line appended, no process started per event);
          `--driver hook` starts the installed hook command per event from `--senders` threads instead.
          Meanwhile 20 of those sessions' Claude transcripts grow with real lines from shared/data, and the
          probe keeps sampling; the collector's CPU and peak RSS are read with psutil; then every event sent is
          looked up in the `events` table by the unique tool_use_id it carried: each must be stored exactly once;
- idle again (the probe only), so the baseline brackets the load;
- hook ceiling: real hook processes as fast as `--senders` threads start them, for `--hook-ceiling-seconds`:
          the rate this machine reaches through real processes, each event again checked exactly once;
- ramp:   `--writers` processes append events with the shim's own append at rising rates for `--step-seconds`
          each, until the spool backlog (bytes not yet ingested) at a step's end exceeds a quarter second of
          that rate or the writers fall short: the highest rate the collector sustains. Bounded by `--max-rate`.

    .venv/bin/python bench/load.py --seconds 60

Not a test: it prints Markdown for docs/performance.md. Everything stops by itself.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import agent_home, hook_payload, machine_line, md_table, ms, shared_data, spawn_timed  # noqa: E402
from _collector import running_collector  # noqa: E402
from load_writer import event_payload  # noqa: E402

SESSIONS = 50
TRANSCRIPTS = 20
VISIBLE_TIMEOUT_S = 30.0
TRANSCRIPT_SOURCE = shared_data() / "claude" / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
PROJECT = "-home-user-projects-my-project"
WRITER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load_writer.py")
CEILING_FIRST = 10_000_000  # event numbers of the hook-process ceiling phase
RAMP_FIRST = 20_000_000  # and of the ramp's steps (each step a million further)


def p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=20, method="inclusive")[18]


class Probe:
    """Sends a marker tool name for one session through the shim and times until `snapshot` shows it."""

    def __init__(self, shim: list[str], env: dict[str, str], out_fd: int, store_path: str) -> None:
        self.shim, self.env, self.out_fd = shim, env, out_fd
        self.session_id = str(uuid.uuid4())
        self.conn = sqlite3.connect(store_path, timeout=10, isolation_level=None, check_same_thread=False)
        self.count = 0
        self.failures = 0

    def once(self) -> float | None:
        self.count += 1
        tool = f"LoadProbe{self.count:05d}"
        body = hook_payload("PreToolUse", self.session_id, self.env["HOME"]) | {
            "tool_name": tool,
            "tool_input": {"command": "true"},
            "tool_use_id": f"toolu_probe_{self.count}",
        }
        start = time.perf_counter()
        spawn_timed(self.shim, json.dumps(body).encode(), self.env, self.out_fd)
        while time.perf_counter() - start < VISIBLE_TIMEOUT_S:
            row = self.conn.execute("SELECT data FROM snapshot WHERE id = ?", (f"claude:{self.session_id}",)).fetchone()
            if row is not None and json.loads(row[0]).get("activity") == tool:
                return time.perf_counter() - start
            time.sleep(0.002)
        self.failures += 1
        return None

    def sample(self, seconds: float, stop: threading.Event | None = None) -> list[float]:
        """About one probe a second for `seconds` (or until `stop`)."""
        found: list[float] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (stop and stop.is_set()):
            began = time.monotonic()
            value = self.once()
            if value is not None:
                found.append(value)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - began)))
        return found


class Watch:
    """The collector's CPU seconds and peak RSS, sampled by psutil while a phase runs."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak_rss = 0
        self._stop = threading.Event()
        self._cpu0 = 0.0
        self._t0 = 0.0
        self.cpu_s = 0.0
        self.wall_s = 0.0

    def __enter__(self) -> Watch:
        times = self.proc.cpu_times()
        self._cpu0, self._t0 = times.user + times.system, time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.peak_rss = max(self.peak_rss, self.proc.memory_info().rss)

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        times = self.proc.cpu_times()
        self.cpu_s = times.user + times.system - self._cpu0
        self.wall_s = time.monotonic() - self._t0


def grow_transcripts(home: str, session_ids: list[str], stop: threading.Event) -> int:
    """Append real transcript lines to 20 sessions' transcripts, two lines a second each, until `stop`."""
    folder = os.path.join(home, ".claude", "projects", PROJECT)
    os.makedirs(folder, exist_ok=True)
    lines = [line for line in TRANSCRIPT_SOURCE.read_bytes().splitlines(keepends=True) if line.strip()]
    source = itertools.cycle(lines)
    written = 0
    while not stop.wait(0.5):
        for sid in session_ids:
            with open(os.path.join(folder, f"{sid}.jsonl"), "ab") as f:
                f.write(next(source))
            written += 1
    return written


def spool_backlog(conn: sqlite3.Connection, spool_dir: str) -> int:
    """Bytes in the spool files that the collector has not ingested yet."""
    cursors = dict(conn.execute("SELECT inode, offset FROM spool_cursor").fetchall())
    total = 0
    for name in os.listdir(spool_dir):
        try:
            st = os.stat(os.path.join(spool_dir, name))
        except FileNotFoundError:
            continue
        total += max(0, st.st_size - cursors.get(st.st_ino, 0))
    return total


def send_load(
    shim: list[str], env: dict[str, str], out_fd: int, args: argparse.Namespace, session_ids: list[str]
) -> tuple[list[int], float, list[float]]:
    """Send events through the shim at `args.rate` in all, paced by a shared schedule; returns the event
    numbers sent, the seconds it took and each shim run's wall time."""
    total = int(args.rate * args.seconds)
    start = time.monotonic()
    walls: list[float] = []

    def send(n: int) -> int:
        delay = start + n / args.rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        payload = event_payload(n, session_ids[n % SESSIONS], env["HOME"], random.Random(n))
        walls.append(spawn_timed(shim, payload, env, out_fd).wall_s)
        return n

    with ThreadPoolExecutor(args.senders) as pool:
        sent = list(pool.map(send, range(total)))
    return sent, time.monotonic() - start, walls


def drive_spool(
    env: dict[str, str], session_ids: list[str], mode: str, rate: float, seconds: float, writers: int, first: int = 0
) -> tuple[list[int], float, float]:
    """Send `rate` events/s in all for `seconds` from `writers` processes (bench/load_writer.py, in `mode`);
    returns the event numbers sent, the seconds from the schedule's start to the last writer's end, and the
    worst writer's p95 lateness behind the schedule."""
    start = time.time() + 1.5  # the writers' imports are not part of the schedule
    config = {"mode": mode, "rate": rate, "seconds": seconds, "writers": writers, "start": start}
    config |= {"sessions": session_ids, "home": env["HOME"], "first": first}
    procs = [
        subprocess.Popen(
            [sys.executable, WRITER, json.dumps(config | {"index": k})], env=env, stdout=subprocess.PIPE, text=True
        )
        for k in range(writers)
    ]
    results = [json.loads(proc.communicate(timeout=seconds + 120)[0]) for proc in procs]
    sent = sorted(n for result in results for n in result["sent"])
    return sent, max(r["ended"] for r in results) - start, max(r["late_p95"] for r in results)


def hook_ceiling(
    shim: list[str], env: dict[str, str], out_fd: int, senders: int, seconds: float, session_ids: list[str]
) -> tuple[list[int], float, list[float]]:
    """Real hook processes started as fast as `senders` threads can for `seconds`: what this machine can
    spawn, whatever the collector does. Returns the event numbers sent, the seconds taken, each run's wall."""
    counter = itertools.count(CEILING_FIRST)
    end = time.monotonic() + seconds
    sent: list[int] = []
    walls: list[float] = []

    def sender() -> None:
        rng = random.Random()
        while time.monotonic() < end:
            n = next(counter)
            payload = event_payload(n, session_ids[n % SESSIONS], env["HOME"], rng)
            walls.append(spawn_timed(shim, payload, env, out_fd).wall_s)
            sent.append(n)

    start = time.monotonic()
    threads = [threading.Thread(target=sender) for _ in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(sent), time.monotonic() - start, walls


def exactly_once(conn: sqlite3.Connection, sent: list[int]) -> tuple[int, int, int]:
    """(stored once, missing, stored more than once) among the events sent."""
    rows = conn.execute(
        "SELECT json_extract(data, '$.tool_use_id'), COUNT(*) FROM events "
        "WHERE json_extract(data, '$.tool_use_id') LIKE 'toolu_load_%' GROUP BY 1"
    ).fetchall()
    counts = dict(rows)
    once = sum(1 for n in sent if counts.get(f"toolu_load_{n}") == 1)
    missing = sum(1 for n in sent if f"toolu_load_{n}" not in counts)
    return once, missing, sum(1 for c in counts.values() if c > 1)


def ramp(conn: sqlite3.Connection, env: dict[str, str], args: argparse.Namespace) -> list[list[str]]:
    """Append events with the shim's own append from `--writers` processes at rising rates; stop at the first
    rate the collector cannot drain (backlog at the end of the step over a quarter second of that rate's
    bytes) or the writers cannot reach."""
    from lunavect import paths
    from lunavect.shim.payload import extract

    session_ids = [str(uuid.uuid4()) for _ in range(SESSIONS)]
    sample = extract("claude", json.loads(event_payload(0, session_ids[0], env["HOME"], random.Random(34))))
    line_bytes = len(json.dumps(sample)) + 200  # + id, time, process facts
    rows = []
    rate = args.rate
    step = 0
    while rate <= args.max_rate:
        first = RAMP_FIRST + step * 1_000_000
        sent, took, late = drive_spool(env, session_ids, "append", rate, args.step_seconds, args.writers, first)
        backlog = spool_backlog(conn, str(paths.spool_dir()))
        achieved = len(sent) / took
        lags = backlog > 0.25 * rate * line_bytes
        short = achieved < 0.9 * rate
        verdict = "lags" if lags else "writers fell short" if short else "keeps up"
        rows.append([f"{rate:g}", f"{achieved:.0f}", f"{1000 * late:.0f}", f"{backlog / 1024:.0f}", verdict])
        if lags or short:
            break
        drain = time.monotonic() + 10
        while spool_backlog(conn, str(paths.spool_dir())) and time.monotonic() < drain:
            time.sleep(0.1)
        rate *= 2
        step += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="length of the load phase (default 60)")
    parser.add_argument("--rate", type=float, default=200, help="events/s in all under load (default 200)")
    parser.add_argument(
        "--driver",
        choices=("spool", "hook"),
        default="spool",
        help="send the load from --writers processes through the shim's own code (spool, default), or start "
        "one hook process per event from --senders threads (hook)",
    )
    parser.add_argument("--writers", type=int, default=4, help="writer processes of the spool driver (default 4)")
    parser.add_argument("--senders", type=int, default=8, help="concurrent hook processes (default 8)")
    parser.add_argument("--idle-seconds", type=float, default=10, help="each idle phase (default 10)")
    parser.add_argument(
        "--hook-ceiling-seconds", type=float, default=10, help="hook processes as fast as they start (default 10)"
    )
    parser.add_argument("--step-seconds", type=float, default=5, help="each ramp step (default 5)")
    parser.add_argument("--max-rate", type=float, default=12800, help="highest ramp rate tried (default 12800)")
    args = parser.parse_args()
    load_before = os.getloadavg()

    with agent_home("lunavect-bench-load-") as agent:
        from lunavect import paths

        env, shim, out_fd = agent.env, agent.shim, agent.out_fd
        session_ids = [str(uuid.uuid4()) for _ in range(SESSIONS)]
        with running_collector(env) as proc:
            probe = Probe(shim, env, out_fd, str(paths.store_path()))
            with Watch(proc.pid) as idle_watch:
                idle = probe.sample(args.idle_seconds)
            stop = threading.Event()
            threads = [
                threading.Thread(target=grow_transcripts, args=(env["HOME"], session_ids[:TRANSCRIPTS], stop)),
            ]
            loaded: list[float] = []
            threads.append(threading.Thread(target=lambda: loaded.extend(probe.sample(args.seconds + 60, stop))))
            with Watch(proc.pid) as load_watch:
                for thread in threads:
                    thread.start()
                if args.driver == "hook":
                    sent, took, walls = send_load(shim, env, out_fd, args, session_ids)
                    how = f"shim wall median {ms(statistics.median(walls))} ms"
                else:
                    sent, took, late = drive_spool(env, session_ids, "handle", args.rate, args.seconds, args.writers)
                    how = f"writers' p95 lateness behind the schedule {1000 * late:.0f} ms"
                sent_end = time.monotonic()
                stop.set()
                for thread in threads:
                    thread.join()
                drain_deadline = time.monotonic() + 120
                while spool_backlog(probe.conn, str(paths.spool_dir())) and time.monotonic() < drain_deadline:
                    time.sleep(0.1)
                drained = time.monotonic() - sent_end
            load_during = os.getloadavg()
            idle.extend(probe.sample(args.idle_seconds))
            once, missing, doubled = exactly_once(probe.conn, sent)
            ceiling = hook_ceiling(shim, env, out_fd, args.senders, args.hook_ceiling_seconds, session_ids)
            while spool_backlog(probe.conn, str(paths.spool_dir())) and time.monotonic() < drain_deadline + 60:
                time.sleep(0.1)
            ceiling_once = exactly_once(probe.conn, ceiling[0])
            steps = ramp(probe.conn, env, args)
            probe_failures = probe.failures

    print(f"## Load ({args.seconds:g} s at {args.rate:g} events/s, {SESSIONS} sessions, driver: {args.driver})\n")
    print(f"Machine: {machine_line()}  ")
    print(
        "Load average (1, 5, 15 min): "
        + "; ".join(
            f"{name} {' '.join(f'{v:.2f}' for v in values)}"
            for name, values in (("before", load_before), ("end of load", load_during), ("end", os.getloadavg()))
        )
        + "  "
    )
    driver = (
        "the installed hook command, one process per event"
        if args.driver == "hook"
        else f"{args.writers} writer processes running the shim's `handle` per event (bench/load_writer.py)"
    )
    print(f"Load sent by: {driver}; collector: `python -m lunavect daemon --quiet`.\n")
    print(
        f"Sent {len(sent)} events in {took:.1f} s ({len(sent) / took:.0f} events/s achieved; {how}); spool "
        f"drained {max(drained, 0):.1f} s after the last one. **Exactly once: {once} of {len(sent)} stored once, "
        f"{missing} missing, {doubled} stored twice or more.** Probes not visible within {VISIBLE_TIMEOUT_S:g} s: "
        f"{probe_failures}.\n"
    )
    rows = [
        ["idle (before and after)", str(len(idle)), ms(statistics.median(idle)), ms(p95(idle)), ms(max(idle))],
        ["under load", str(len(loaded)), ms(statistics.median(loaded)), ms(p95(loaded)), ms(max(loaded))],
    ]
    print(md_table(["hook -> visible in `snapshot`", "probes", "median ms", "p95 ms", "max ms"], rows))
    print(f"\np95 under load / idle: {p95(loaded) / p95(idle):.2f}x\n")
    rows = [
        [name, f"{w.cpu_s:.1f}", f"{w.wall_s:.1f}", f"{100 * w.cpu_s / w.wall_s:.0f}", f"{w.peak_rss / 2**20:.0f}"]
        for name, w in (("idle (first phase)", idle_watch), ("load, until drained", load_watch))
    ]
    print(md_table(["collector", "CPU s", "wall s", "CPU %", "peak RSS MiB"], rows))
    c_sent, c_took, c_walls = ceiling
    print(
        f"\nReal hook processes, as fast as {args.senders} threads start them for {c_took:.1f} s: "
        f"{len(c_sent)} events, **{len(c_sent) / c_took:.0f} events/s**, hook wall median "
        f"{ms(statistics.median(c_walls))} ms; exactly once: {ceiling_once[0]} of {len(c_sent)}, "
        f"{ceiling_once[1]} missing, {ceiling_once[2]} twice.\n"
    )
    print(f"Ramp ({args.writers} writer processes appending with the shim's code, {args.step_seconds:g} s a step):\n")
    print(md_table(["target events/s", "achieved", "writers' p95 late ms", "backlog at step end KiB", "spool"], steps))


if __name__ == "__main__":
    main()
