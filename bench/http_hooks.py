"""What lunavect's hooks cost a real Claude Code turn: no hooks, the command shim, and HTTP hooks.

The real client (tests/clients finds it) runs `claude -p` against the scripted model server: one turn of
50 tool calls in a row (Read of a small file), so 50 PreToolUse and 50 PostToolUse events plus the turn's
own. Each round runs, in rotating order:

- none:  no hooks at all: the baseline;
- shim:  `lunavect hooks install` (the command shim for every event);
- http:  every event as an HTTP hook to lunavect's loopback listener (lunavect/hook_listener.py) running in
         this process, with the per-install secret as a literal header.

    .venv/bin/python bench/http_hooks.py --runs 5

Not a test: it prints a Markdown table (wall time of the whole `claude -p`, median and p90, ratio to none)
for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "clients"))
from anthropic_server import AnthropicServer, text, tool_use  # noqa: E402
from claude_tmux import IsoHome, ensure_clients, run_print  # noqa: E402

from _benchlib import machine_line, md_table, ms, p90  # noqa: E402
from lunavect.claude.install import EVENTS  # noqa: E402
from lunavect.hook_listener import HOOK_PATH, SECRET_HEADER, HookListener  # noqa: E402

TOOL_CALLS = 50
SECRET = "b" * 64


def install_shim(iso: IsoHome) -> None:
    subprocess.run([sys.executable, "-m", "lunavect", "hooks", "install"], env=iso.env, check=True, capture_output=True)


def install_http(iso: IsoHome, port: int) -> None:
    handler = {
        "type": "http",
        "url": f"http://127.0.0.1:{port}{HOOK_PATH}",
        "headers": {SECRET_HEADER: SECRET},
        "timeout": 1,
    }
    iso.write_claude_settings({"hooks": {event: [{"hooks": [handler]}] for event in EVENTS}})


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
    args = parser.parse_args()
    claude = ensure_clients().claude
    homes = {name: IsoHome.create(prefix=f"lvb-{name}-") for name in ("none", "shim", "http")}
    times: dict[str, list[float]] = {name: [] for name in homes}
    listener = HookListener(str(homes["http"].lunavect_home / "spool" / "events.jsonl"), SECRET).start()
    try:
        install_shim(homes["shim"])
        install_http(homes["http"], listener.port)
        targets = {}
        for name, iso in homes.items():
            iso.prepare_claude(cwds=[iso.work])
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
        spooled = homes["http"].lunavect_home / "spool" / "events.jsonl"
        lines = [json.loads(line) for line in spooled.read_text().splitlines()] if spooled.exists() else []
        tool_events = sum(1 for line in lines if line.get("event") in ("PreToolUse", "PostToolUse"))
    finally:
        listener.close()
        for iso in homes.values():
            iso.cleanup()
    base = statistics.median(times["none"])
    rows = [
        [name, ms(statistics.median(v)), ms(p90(v)), f"{statistics.median(v) / base:.3f}×"] for name, v in times.items()
    ]
    print(machine_line())
    print(f"One `claude -p` turn with {TOOL_CALLS} Read calls in a row, {args.runs} runs each (interleaved).\n")
    print(md_table(["hooks", "median", "p90", "ratio to none"], rows))
    print(
        f"\nHTTP listener: {listener.accepted} events accepted ({tool_events} tool events), refused {listener.refused}"
    )


if __name__ == "__main__":
    main()
