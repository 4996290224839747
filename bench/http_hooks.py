"""What lunavect's hooks cost a real Claude Code turn: no hooks, the command shim, and HTTP hooks.

The real client (tests/clients finds it) runs `claude -p` against the scripted model server: one turn of
50 tool calls in a row (Read of a small file), so 50 PreToolUse and 50 PostToolUse events plus the turn's
own. Each home has its own collector running (`lunavect daemon`, as on a person's machine), and each round
runs, in rotating order:

- none:     no hooks at all: the baseline;
- shim:     `lunavect hooks install` (the command shim for every event);
- http:     `lunavect hooks install --http` (the tool events as HTTP hooks to the collector's listener, the
            turn's other events by the shim);
- all-http: (with --all-http) every event as an HTTP hook to the collector's listener: what HTTP alone costs;
- bare:     (with --bare) the tool events as HTTP hooks to a listener in this process, other events by the shim,
            no collector reading what it spools: what the collector's own work costs the turn;
- true:     (with --bare) the tool events as the command `true`, other events by the shim: the cheapest hook
            Claude Code can run, for the floor of its own cost per hook.

    .venv/bin/python bench/http_hooks.py --runs 5

Not a test: it prints a Markdown table (wall time of the whole `claude -p`, median and p90, ratio to none)
for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
from anthropic_server import AnthropicServer, text, tool_use  # noqa: E402
from claude_tmux import IsoHome, ensure_clients, run_print  # noqa: E402
from lunavect_probe import http_spool_lines  # noqa: E402

from _benchlib import machine_line, md_table, ms, p90  # noqa: E402
from lunavect.clients.claude import http_hooks  # noqa: E402
from lunavect.clients.claude.install import EVENTS  # noqa: E402
from lunavect.listener.server import HookListener  # noqa: E402

TOOL_CALLS = 50
BARE_SECRET = "b" * 64


def lunavect(iso: IsoHome, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "lunavect", *args], env=iso.env, check=True, capture_output=True)
    return done.stdout.decode()


def install(iso: IsoHome, name: str, bare: HookListener | None = None) -> None:
    """Set the home up as `name` says, and leave its collector running (but for `bare`)."""
    if name == "bare" and bare is not None:
        lunavect(iso, "hooks", "install")  # the shim everywhere, then the tool events to the bare listener
        settings = iso.read_claude_settings()
        for event in http_hooks.HTTP_EVENTS:
            settings["hooks"][event] = [{"hooks": [http_hooks.handler(bare.port, BARE_SECRET)]}]
        iso.write_claude_settings(settings)
        return
    if name == "true":
        lunavect(iso, "hooks", "install")
        settings = iso.read_claude_settings()
        for event in http_hooks.HTTP_EVENTS:
            settings["hooks"][event] = [{"hooks": [{"type": "command", "command": "true", "timeout": 1}]}]
        iso.write_claude_settings(settings)
        return
    if name == "none":
        lunavect(iso, "list")  # starts the collector
        return
    if name == "shim":
        lunavect(iso, "hooks", "install")
        lunavect(iso, "list")
        return
    out = lunavect(iso, "hooks", "install", "--http")
    if "answers" not in out:
        raise SystemExit(f"the collector's listener does not answer: {out}")
    if name == "all-http":  # every event by HTTP, to the same listener with the same secret
        handler = next(h for g in iso.read_claude_settings()["hooks"]["PreToolUse"] for h in g["hooks"])
        iso.write_claude_settings({"hooks": {event: [{"hooks": [handler]}] for event in EVENTS}})


def round_trips(iso: IsoHome, count: int) -> list[float]:
    """Seconds each of `count` PreToolUse POSTs takes to be answered by the collector's listener (one at a
    time, 20 ms apart, as a turn's tool calls come), each followed by the collector ingesting it."""
    data = iso.lunavect_home
    port = json.loads((data / "http-hooks.json").read_text())["port"]
    secret = (data / "hook-secret").read_text().strip()
    body = json.dumps(
        {"hook_event_name": "PreToolUse", "session_id": "3fd75c2e-f60a-47a1-9b70-087f2037adbf", "tool_name": "Read"}
    ).encode()
    head = f"POST {http_hooks.HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n{http_hooks.SECRET_HEADER}: {secret}\r\n"
    request = (head + f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    took = []
    for _ in range(count):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(request)
            if not sock.recv(100).startswith(b"HTTP/1.1 200"):
                raise SystemExit("the listener refused the bench's event")
        took.append(time.perf_counter() - start)
        time.sleep(0.02)
    return took


def http_events(iso: IsoHome) -> dict[str, int]:
    """How many events of each kind came by HTTP, from the spool (the listener marks its lines)."""
    counts: dict[str, int] = {}
    for record in http_spool_lines(iso.lunavect_home):
        counts[record.get("event", "?")] = counts.get(record.get("event", "?"), 0) + 1
    return counts


def one_turn(claude: Path, iso: IsoHome, server: AnthropicServer, target: Path) -> float:
    steps = [tool_use("Read", {"file_path": str(target)}) for _ in range(TOOL_CALLS)]
    server.script(*steps, text("done"))
    env = iso.claude_env(server.url, max_retries=0)
    start = time.perf_counter()
    proc = run_print(claude, "read it fifty times", env=env, cwd=iso.work, timeout=300)
    took = time.perf_counter() - start
    if proc.returncode != 0 or "done" not in proc.stdout:
        raise SystemExit(f"the turn failed: {proc.stderr[-400:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all-http", action="store_true", help="also every event as an HTTP hook")
    parser.add_argument("--bare", action="store_true", help="also the tool events to a listener with no collector")
    args = parser.parse_args()
    claude = ensure_clients().claude
    names = ["none", "shim", "http"] + ["all-http"] * args.all_http + ["bare", "true"] * args.bare
    homes = {name: IsoHome.create(prefix=f"lvb-{name}-") for name in names}
    bare = HookListener(str(homes["bare"].tmp / "bare.jsonl"), BARE_SECRET).start() if args.bare else None
    times: dict[str, list[float]] = {name: [] for name in homes}
    counts: dict[str, dict[str, int]] = {}
    try:
        targets = {}
        for name, iso in homes.items():
            iso.prepare_claude(cwds=[iso.work])
            install(iso, name, bare)
            targets[name] = iso.work / "small.txt"
            targets[name].write_text("hello\n")
        with AnthropicServer() as server:
            order = list(homes)
            for run in range(args.runs + 1):
                for name in order:
                    took = one_turn(claude, homes[name], server, targets[name])
                    if run > 0:  # the first round warms the page cache and the client's own caches
                        times[name].append(took)
                order = order[1:] + order[:1]
        counts = {name: http_events(iso) for name, iso in homes.items() if "http" in name}
        trips = round_trips(homes["http"], 200)
    finally:
        if bare is not None:
            bare.close()
        for iso in homes.values():
            iso.cleanup()  # stops its collector too
    base = statistics.median(times["none"])
    rows = [
        [name, ms(statistics.median(v)), ms(p90(v)), f"{statistics.median(v) / base:.3f}×"] for name, v in times.items()
    ]
    print(machine_line())
    print(f"One `claude -p` turn with {TOOL_CALLS} Read calls in a row, {args.runs} runs each (interleaved).\n")
    print(md_table(["hooks", "median", "p90", "ratio to none"], rows))
    print(
        f"\nOne HTTP hook answered by the collector's listener (200 PreToolUse, 20 ms apart): median "
        f"{ms(statistics.median(trips))} ms, p90 {ms(p90(trips))} ms"
    )
    for name, by_kind in counts.items():
        print(f"\n{name}: events that came by HTTP: {dict(sorted(by_kind.items()))}")
    if bare is not None:
        print(f"bare: the listener accepted {bare.accepted} events")
    print(f"HTTP events of `hooks install --http`: {', '.join(http_hooks.HTTP_EVENTS)}")


if __name__ == "__main__":
    main()
