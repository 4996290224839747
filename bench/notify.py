"""How long from a hook event to its notification on the D-Bus session bus, beside the hook -> `list` figure,
and what the notifier costs an idle collector.

It starts Xvfb, a private D-Bus session bus and dunst (the notification test's `desktop_bus`), one collector
(`python -m lunavect daemon --quiet`) on that bus in a temporary LUNAVECT_HOME, and `dbus-monitor` watching
for `org.freedesktop.Notifications.Notify` calls. Each round, for a new session: the installed hook shim with
a UserPromptSubmit, then a Stop (the reply ends: response ready), timed from the Stop's spawn until

- notify:   the Notify call shows on the bus (with the default 1.5 s coalescing window, and with none);
- list:     `lunavect list --json` shows the session as ready (the baseline the other figures compare to).

Then the collector's CPU time over an idle stretch with notifications on and off (`/proc/<pid>/stat`).

    .venv/bin/python bench/notify.py --runs 15

Not a test: it prints Markdown tables for docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "clients"))
from desktop_bus import DesktopBus  # noqa: E402

from _benchlib import agent_home, hook_payload, machine_line, md_table, ms, p90, resolve, spawn_timed  # noqa: E402
from _collector import running_collector  # noqa: E402

SEEN_TIMEOUT_S = 15.0


class BusWatch:
    """`dbus-monitor` on the bus; each Notify method call puts its arrival time on a queue."""

    def __init__(self, env: dict[str, str]) -> None:
        self.times: queue.SimpleQueue[float] = queue.SimpleQueue()
        self.proc = subprocess.Popen(
            ["dbus-monitor", "--session", "interface='org.freedesktop.Notifications',member='Notify'"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("method call") and "member=Notify" in line:
                self.times.put(time.perf_counter())

    def drain(self) -> None:
        while not self.times.empty():
            self.times.get()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds of each mode (default 15)")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle CPU measured per setting")
    args = parser.parse_args()
    lunavect = resolve([os.path.join(os.path.dirname(sys.executable), "lunavect")])[0]
    results: dict[str, list[float]] = {"notify": [], "notify-0": [], "list": []}
    idle: dict[str, float] = {}
    failures: list[str] = []
    desktop = DesktopBus.start()
    try:
        with agent_home("lunavect-bench-notify-", extra_env=desktop.env) as agent:
            from lunavect import store
            from lunavect.notify import settings

            env, shim, out_fd = agent.env, agent.shim, agent.out_fd
            with contextlib.closing(BusWatch(env)) as watch, running_collector(env) as proc:
                conn = store.connect()

                def coalesce(seconds: float) -> None:
                    chosen = settings.load(conn)
                    chosen.coalesce_s = seconds
                    settings.save(conn, chosen)

                def reply_ends(session_id: str) -> float:
                    prompt = hook_payload("UserPromptSubmit", session_id, env["HOME"]) | {"prompt": "benchmark"}
                    spawn_timed(shim, json.dumps(prompt).encode(), env, out_fd)
                    time.sleep(0.3)  # a turn that lasts a little, as a real one does
                    stop = hook_payload("Stop", session_id, env["HOME"]) | {"stop_hook_active": False}
                    start = time.perf_counter()
                    spawn_timed(shim, json.dumps(stop).encode(), env, out_fd)
                    return start

                def ready_in_list(session_id: str) -> bool:
                    done = subprocess.run([lunavect, "list", "--json"], capture_output=True, env=env, timeout=60)
                    return any(s["session_id"] == session_id and s["state"] == "ready" for s in json.loads(done.stdout))

                for mode in ("list", "notify", "notify-0"):
                    coalesce(0.0 if mode == "notify-0" else settings.NotifySettings().coalesce_s)
                    time.sleep(2.5)  # the previous mode's last notification is out
                    for _ in range(args.runs):
                        session_id = str(uuid.uuid4())
                        watch.drain()
                        start = reply_ends(session_id)
                        if mode == "list":
                            while not ready_in_list(session_id):
                                if time.perf_counter() - start > SEEN_TIMEOUT_S:
                                    failures.append(f"{mode}: not ready in the list")
                                    break
                            results[mode].append(time.perf_counter() - start)
                            continue
                        try:
                            seen = watch.times.get(timeout=SEEN_TIMEOUT_S)
                        except queue.Empty:
                            failures.append(f"{mode}: no Notify call within {SEEN_TIMEOUT_S} s")
                            continue
                        results[mode].append(seen - start)
                        time.sleep(0.5)
                coalesce(settings.NotifySettings().coalesce_s)
                for label, on in (("on", True), ("off", False), ("on again", True)):
                    chosen = settings.load(conn)
                    chosen.enabled = on
                    settings.save(conn, chosen)
                    time.sleep(2)
                    before = cpu_seconds(proc.pid)
                    time.sleep(args.idle)
                    idle[label] = cpu_seconds(proc.pid) - before
                conn.close()
    finally:
        desktop.stop()

    print(f"## Hook event to notification on the bus ({args.runs} rounds each)\n")
    print(f"Machine: {machine_line()}  ")
    print("Collector: `python -m lunavect daemon --quiet` on a private bus with dunst under Xvfb.")
    if failures:
        print(f"\nFAILURES ({len(failures)}): " + "; ".join(failures[:5]))
    print()
    labels = {
        "list": "Stop hook, then `lunavect list --json` until the session is ready (baseline)",
        "notify": "Stop hook, then the Notify call on the bus (default 1.5 s coalescing)",
        "notify-0": "Stop hook, then the Notify call on the bus (coalescing 0 s)",
    }
    rows = [
        [label, ms(statistics.median(results[m])), ms(p90(results[m])), ms(min(results[m])), ms(max(results[m]))]
        for m, label in labels.items()
        if results[m]
    ]
    print(md_table(["measure", "median ms", "p90 ms", "min ms", "max ms"], rows))
    base = statistics.median(results["list"])
    print(
        f"\nhook -> notification / hook -> list: {statistics.median(results['notify']) / base:.2f}x "
        f"(without coalescing {statistics.median(results['notify-0']) / base:.2f}x)\n"
    )
    print(
        md_table(
            ["collector idle", f"CPU s over {args.idle:g} s", "% of one core"],
            [[k, f"{v:.3f}", f"{100 * v / args.idle:.2f}"] for k, v in idle.items()],
        )
    )


if __name__ == "__main__":
    main()
