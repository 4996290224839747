"""From a hook event on host A to its effect in host B's store, through a real nats-server, with 20 hosts of
50 sessions each in the bucket; bytes on the wire per change and idle traffic per host.

Hosts A and B are real collectors (`python -m lunavect daemon`, each with its own data folder, `sync set`
to the server); 18 more hosts are simulated in this process by a NATS client that puts 50 rows each and
beats every 5 s, as collectors do. Each round runs the installed hook shim with a PreToolUse for a new tool
name on one of A's 50 sessions, then polls (every 1 ms) A's own `snapshot` table and B's `remote_session`
table until each shows that tool: the first is the local hook → store figure (the baseline, the same one
bench/hook_to_list.py measures), the second the sync figure, from the same event. Bytes come from the
server's own per-connection counters (its monitoring port): what A and B sent and received during the
rounds, less their idle rate, per change; and their traffic while nothing changes.

    .venv/bin/python bench/sync.py --runs 60 --idle 30

Not a test: it prints Markdown tables for docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The sync tests' row builder (tests/support/sync_support.py), which builds on unit_support.py beside it.
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
from sync_support import row  # noqa: E402

from _benchlib import agent_home, home_folders, hook_payload, machine_line, md_table, ms, p90  # noqa: E402
from _collector import spawn_collector  # noqa: E402

HOSTS = 20
SESSIONS = 50
BEAT_S = 5.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(folder: str) -> tuple[subprocess.Popen, str, int]:
    port, http = free_port(), free_port()
    conf = os.path.join(folder, "nats.conf")
    with open(conf, "w") as f:
        f.write(f'listen: "127.0.0.1:{port}"\nhttp: "127.0.0.1:{http}"\njetstream {{ store_dir: "{folder}/js" }}\n')
    binary = os.path.join(os.path.dirname(sys.executable), "nats-server")
    log = open(os.path.join(folder, "nats.log"), "ab")  # noqa: SIM115
    proc = subprocess.Popen([binary, "-c", conf], stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"nats://127.0.0.1:{port}", http
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nats-server did not start")


def connz(http: int) -> dict[str, tuple[int, int]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{http}/connz?limit=1000", timeout=5) as reply:
        data = json.load(reply)
    return {c.get("name", ""): (c["in_bytes"], c["out_bytes"]) for c in data.get("connections", [])}


def wire(http: int, name: str) -> int:
    in_bytes, out_bytes = connz(http).get(name, (0, 0))
    return in_bytes + out_bytes


def simulated_hosts(url: str, count: int, stop: threading.Event) -> threading.Thread:
    """`count` hosts that put SESSIONS rows each, then beat every BEAT_S, as collectors do."""

    async def main() -> None:
        import msgspec
        import nats

        from lunavect.sync import keys
        from lunavect.sync.client import open_bucket
        from lunavect.sync.remote import Beat

        async def quiet(_exc: Exception) -> None:
            pass

        nc = await nats.connect(servers=[url], name="simulated hosts", error_cb=quiet)
        kv = await open_bucket(nc.jetstream(timeout=10.0))
        names = [f"sim{i:02d}" for i in range(count)]
        for name in names:
            for _ in range(SESSIONS):
                sid = str(uuid.uuid4())
                await kv.put(
                    keys.session_key(name, f"claude:{sid}"), row(sid, name, title="a task of a simulated host")
                )
        while not stop.is_set():
            for name in names:
                beat = Beat(at=time.time(), every=BEAT_S, machine=name)
                await kv.put(keys.beat_key(name), msgspec.json.encode(beat))
            await asyncio.sleep(BEAT_S)
        await nc.close()

    def run() -> None:
        try:
            asyncio.run(main())
        except Exception:  # noqa: BLE001 - the server stops under it at the end of the run
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def start_collector(env: dict[str, str], url: str, host: str) -> subprocess.Popen:
    """A collector for `host`, told to sync through `url` (it starts syncing on its next tick)."""
    proc = spawn_collector(env)
    done = subprocess.run(
        [sys.executable, "-m", "lunavect", "sync", "set", url, "--host-name", host],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        raise SystemExit(f"sync set failed on {host}: {done.stderr}")
    return proc


def store_of(env: dict[str, str]) -> sqlite3.Connection:
    return sqlite3.connect(os.path.join(env["LUNAVECT_HOME"], "lunavect.sqlite3"), timeout=5, isolation_level=None)


def activity(conn: sqlite3.Connection, sql: str, key: str) -> str | None:
    found = conn.execute(sql, (key,)).fetchone()
    return None if found is None else json.loads(found[0]).get("activity")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle traffic to measure")
    args = parser.parse_args()

    with agent_home("lunavect-bench-sync-") as agent:
        env_a, shim = agent.env, agent.shim
        root = tempfile.mkdtemp(prefix="lunavect-bench-sync-hosts-")
        server, url, http = start_server(root)
        stop = threading.Event()
        procs: list[subprocess.Popen] = []
        try:
            simulated_hosts(url, HOSTS - 2, stop)
            env_b = env_a | home_folders(os.path.join(root, "b"))
            procs.append(start_collector(env_a, url, "a"))
            procs.append(start_collector(env_b, url, "b"))
            sessions = [str(uuid.uuid4()) for _ in range(SESSIONS)]
            home = env_a["HOME"]

            def hook(session_id: str, tool: str) -> None:
                payload = hook_payload("PreToolUse", session_id, home) | {
                    "tool_name": tool,
                    "tool_input": {"command": "npm test"},
                    "tool_use_id": f"toolu_{uuid.uuid4().hex[:20]}",
                }
                subprocess.run(shim, input=json.dumps(payload).encode(), env=env_a, check=True)

            for sid in sessions:
                hook(sid, "Bash")
            a, b = store_of(env_a), store_of(env_b)
            local_sql = "SELECT data FROM snapshot WHERE id = ?"
            remote_sql = "SELECT data FROM remote_session WHERE host = 'a' AND id = ?"
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                heard = b.execute("SELECT COUNT(*) FROM remote_session").fetchone()[0]
                if heard >= (HOSTS - 1) * SESSIONS:
                    break
                time.sleep(0.2)
            else:
                raise SystemExit("B never saw every other host's sessions")

            wire_a0, wire_b0, t_rounds = wire(http, "lunavect a"), wire(http, "lunavect b"), time.monotonic()
            local: list[float] = []
            remote: list[float] = []
            for round_no in range(args.warmup + args.runs):
                key_sid = sessions[round_no % SESSIONS]
                key, tool = f"claude:{key_sid}", f"Tool{round_no}"
                started = time.perf_counter()
                hook(key_sid, tool)
                seen_local = seen_remote = None
                limit = time.monotonic() + 20
                while (seen_local is None or seen_remote is None) and time.monotonic() < limit:
                    now = time.perf_counter()
                    if seen_local is None and activity(a, local_sql, key) == tool:
                        seen_local = now - started
                    if seen_remote is None and activity(b, remote_sql, key) == tool:
                        seen_remote = now - started
                    time.sleep(0.001)
                if seen_local is None or seen_remote is None:
                    raise SystemExit(f"round {round_no}: not visible (local {seen_local}, remote {seen_remote})")
                if round_no >= args.warmup:
                    local.append(seen_local)
                    remote.append(seen_remote)
            rounds_s = time.monotonic() - t_rounds
            bytes_a, bytes_b = wire(http, "lunavect a") - wire_a0, wire(http, "lunavect b") - wire_b0

            idle_a0, idle_b0, t_idle = wire(http, "lunavect a"), wire(http, "lunavect b"), time.monotonic()
            time.sleep(args.idle)
            idle_s = time.monotonic() - t_idle
            rate_a = (wire(http, "lunavect a") - idle_a0) / idle_s
            rate_b = (wire(http, "lunavect b") - idle_b0) / idle_s
        finally:
            stop.set()
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
            server.terminate()
            server.wait(10)
            shutil.rmtree(root, ignore_errors=True)  # host B's home and the server's store

    changes = args.warmup + args.runs
    per_change_a = (bytes_a - rate_a * rounds_s) / changes
    per_change_b = (bytes_b - rate_b * rounds_s) / changes
    ratio = statistics.median(remote) / statistics.median(local)
    print(machine_line())
    print(f"\n{HOSTS} hosts x {SESSIONS} sessions in the bucket; {args.runs} rounds after {args.warmup} warm-up\n")
    print(
        md_table(
            ["from a PreToolUse on host A until ...", "median ms", "p95 ms", "min ms", "max ms"],
            [
                [
                    "A's own store shows it (local baseline)",
                    ms(statistics.median(local)),
                    ms(p95(local)),
                    ms(min(local)),
                    ms(max(local)),
                ],
                [
                    "B's store shows it (through sync)",
                    ms(statistics.median(remote)),
                    ms(p95(remote)),
                    ms(min(remote)),
                    ms(max(remote)),
                ],
            ],
        )
    )
    print(f"\nsync / local (medians): {ratio:.2f}x; p90 of sync {ms(p90(remote))} ms\n")
    print(
        md_table(
            ["bytes on the wire (server's counters, in + out)", "host A (writes)", "host B (watches)"],
            [
                ["per change", f"{per_change_a:.0f}", f"{per_change_b:.0f}"],
                ["idle, per second", f"{rate_a:.0f}", f"{rate_b:.0f}"],
            ],
        )
    )


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


if __name__ == "__main__":
    main()
