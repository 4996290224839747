"""How much wall time the hook shim costs Claude Code per event, against a bare interpreter start.

Claude Code runs the installed hook command for every lifecycle event and writes the event's JSON to its
stdin through a pipe. This script installs lunavect's hooks into a temporary CLAUDE_CONFIG_DIR, takes the
exact command written there, and runs it with realistic payloads (PreToolUse Bash, PostToolUse with a few KB
of tool_response, Stop with background_tasks and a 200 KB last_assistant_message, UserPromptSubmit with a
<task-notification>), side by side with `/bin/true` and a bare `python -I -S -c pass` of the same
interpreter, round-robin so that drift cancels. Target (the issue): shim <= 1.5x bare interpreter.

    .venv/bin/python bench/hook_shim.py --runs 60
    .venv/bin/python bench/hook_shim.py --runs 60 --breakdown --profile 30
    .venv/bin/python bench/hook_shim.py --runs 60 --before ../previous-checkout/src

Run it with the venv's python: its sys.executable is the interpreter the installed command names.
Not a test: nothing here asserts a threshold; it prints Markdown tables for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import SRC, Run, agent_home, hook_payload, machine_line, md_table, ms, p90, resolve, spawn_timed  # noqa: E402

# -- payloads, from FACTS.md "Claude Code hooks" and research/claude-formats.md §1.3 ---------------------------


def _test_output(size: int) -> str:
    lines = []
    i = 0
    while sum(len(x) + 1 for x in lines) < size:
        lines.append(f"PASS tests/unit/test_module_{i:03d}.py::test_case_{i % 17} ({(i * 37) % 900 + 12} ms)")
        i += 1
    lines.append(f"\n{i} passed, 0 failed in 41.7s")
    return "\n".join(lines)


def _long_reply(size: int) -> str:
    paragraph = (
        "I went through `src/app/server.py` and the failing tests. The handler reads the request body twice, "
        "so the second read returns an empty buffer and the JSON decoder raises. I changed it to read once "
        "and pass the bytes along, and added a regression test.\n\n"
        "```python\nbody = await request.body()\npayload = json.loads(body or b'{}')\n```\n\n"
        "- `tests/test_server.py::test_post_twice` now passes\n- the coverage report is unchanged\n\n"
    )
    text = (paragraph * (size // len(paragraph) + 1))[:size]
    return text + "\n\nAll 412 tests pass now. Shall I apply the same change to the other two handlers?"


def payloads(session_id: str, home: str) -> dict[str, bytes]:
    pre = hook_payload("PreToolUse", session_id, home) | {
        "tool_name": "Bash",
        "tool_input": {
            "command": "npm test -- --coverage 2>&1 | tail -50",
            "description": "Run test suite",
            "timeout": 120000,
            "run_in_background": False,
        },
        "tool_use_id": "toolu_01ABC123DEF456GHI789JKL0",
    }
    post = hook_payload("PostToolUse", session_id, home) | {
        "tool_name": "Bash",
        "tool_input": pre["tool_input"],
        "tool_response": {
            "stdout": _test_output(4096),
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        "tool_use_id": "toolu_01ABC123DEF456GHI789JKL0",
        "duration_ms": 41873,
    }
    stop = hook_payload("Stop", session_id, home) | {
        "stop_hook_active": False,
        "last_assistant_message": _long_reply(200 * 1024),
        "background_tasks": [
            {
                "id": "b0be39e",
                "type": "shell",
                "status": "running",
                "description": "Start the dev server",
                "command": "cd web && npm run dev -- --port 5173",
            },
            {
                "id": "bd0afab",
                "type": "shell",
                "status": "running",
                "description": "Run resource and renderer tests",
                "command": "mix test test/resources test/renderers 2>&1 | tee /tmp/test.log",
            },
            {
                "id": "a881341",
                "type": "subagent",
                "status": "running",
                "description": "Review the diff for regressions",
                "agent_type": "general-purpose",
            },
        ],
        "session_crons": [],
    }
    out = "/tmp/claude-1000/-home-user-projects-my-project/tasks/b0be39e.output"
    prompt = (
        "<task-notification>\n<task-id>b0be39e</task-id>\n<tool-use-id>toolu_01XYZ987</tool-use-id>\n"
        f"<output-file>{out}</output-file>\n<status>completed</status>\n"
        '<summary>Background command "Force recompile ash deps to clear stale associations" completed '
        "(exit code 0)</summary>\n</task-notification>\n"
        f"Read the output file to retrieve the result: {out}"
    )
    prompt_event = hook_payload("UserPromptSubmit", session_id, home) | {"prompt": prompt}
    events = {
        "PreToolUse Bash": pre,
        "PostToolUse 4 KB": post,
        "Stop 200 KB": stop,
        "UserPromptSubmit notification": prompt_event,
    }
    return {name: json.dumps(event).encode() for name, event in events.items()}


# -- the variants -------------------------------------------------------------------------------------------------


def variants(hook_command: str, breakdown: bool) -> dict[str, list[str]]:
    python = sys.executable
    lunavect = os.path.join(os.path.dirname(python), "lunavect")
    found = {
        "/bin/true": ["/bin/true"],
        "bare: python -I -S -c pass": [python, "-I", "-S", "-c", "pass"],
        "shim: installed command": shlex.split(hook_command),
        "cli: lunavect hook claude": [lunavect, "hook", "claude"],
        "bash -c bare": ["bash", "-c", f"{shlex.quote(python)} -I -S -c pass"],
        "bash -c shim (as Claude Code runs it)": ["bash", "-c", hook_command],
    }
    if breakdown:
        src = repr(SRC)
        found |= {
            # What the shim's stdlib imports cost by themselves (json pulls in re, enum, functools...).
            "bare + import json, select": [python, "-I", "-S", "-c", "import json, select"],
            # The shim's whole import graph, from cached bytecode, without running anything.
            "bare + import lunavect.shim.entry": [
                python, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {src}); import lunavect.shim.entry",
            ],
            # The whole shim from cached bytecode, as the installed command runs it but without its argv dance.
            "shim from cached bytecode": [
                python, "-I", "-S", "-c",
                f"import sys; sys.path.insert(0, {src}); from lunavect.shim.entry import main; main(['claude'])",
            ],
            # What `re` alone costs (needed by any event whose classifier or parsing uses a regex).
            "bare + import re": [python, "-I", "-S", "-c", "import re"],
            # The floor of a shim that avoids `json` and `re`: what it cannot avoid importing.
            "bare + import os, _json, select": [python, "-I", "-S", "-c", "import os, _json, select"],
        }  # fmt: skip
    return {name: resolve(argv) for name, argv in found.items()}


SHIM_VARIANTS = (
    "shim: installed command",
    "cli: lunavect hook claude",
    "bash -c shim (as Claude Code runs it)",
    "shim from cached bytecode",
)
BARE = "bare: python -I -S -c pass"
BEFORE = "before: the --before shim, as its hooks install wrote it"
# The command every earlier version installed: it imports `lunavect.hook` from the folder that follows.
BEFORE_LAUNCHER = "import sys;sys.path.insert(0,sys.argv.pop(1));import lunavect.hook as h;h.main()"
SHIM = "shim: installed command"


# -- measuring ------------------------------------------------------------------------------------------------------


def measure(cells: list[tuple[str, str]], argvs, events, env, runs: int, warmup: int, out_fd: int):
    """Round-robin over every (payload, variant) cell, rotating the starting cell each round."""
    results: dict[tuple[str, str], list[Run]] = {cell: [] for cell in cells}
    for round_no in range(warmup + runs):
        shift = round_no % len(cells)
        for cell in cells[shift:] + cells[:shift]:
            payload_name, variant = cell
            run = spawn_timed(argvs[variant], events[payload_name], env, out_fd)
            if run.status != 0:
                raise SystemExit(f"{variant} with {payload_name} exited {run.status}")
            if round_no >= warmup:
                results[cell].append(run)
    return results


def check_spool(expected_events: int) -> str:
    """Every shim run must have written one accepted record (else we timed a shim that failed)."""
    from lunavect.shim.spoolfile import spool_path

    try:
        with open(spool_path(), "rb") as f:
            records = [json.loads(line) for line in f]
    except FileNotFoundError:
        records = []
    rejected = [r for r in records if "rejected" in r]
    if len(records) != expected_events or rejected:
        raise SystemExit(f"spool holds {len(records)} records ({len(rejected)} rejected); expected {expected_events}")
    with_agent = sum(1 for r in records if r.get("pid") == os.getpid())
    return f"{len(records)} spool records written, none rejected; {with_agent} found the agent process (this script)"


# -- profiling ------------------------------------------------------------------------------------------------------

PHASES_CHILD = r"""
import sys, time
t0 = time.perf_counter()
import json, select
t1 = time.perf_counter()
sys.path.insert(0, SRC)
import lunavect.core.services
t2 = time.perf_counter()
import lunavect.core.closing_question
t3 = time.perf_counter()
import lunavect.shim.jsoncodec, lunavect.shim.payload, lunavect.shim.procfacts, lunavect.shim.spoolfile
t4 = time.perf_counter()
from lunavect.shim import entry
t5 = time.perf_counter()
raw, error = entry.read_stdin()
t6 = time.perf_counter()
payload, _ = entry.parse_payload(raw)
t7 = time.perf_counter()
record = entry.extract("claude", payload)
t8 = time.perf_counter()
record.update(entry.agent_process("claude"))
t9 = time.perf_counter()
entry.append_line(entry.spool_path(), entry.json_dumps(record))
t10 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7, t9 - t8, t10 - t9]))
"""
PHASE_NAMES = [
    "import json, select (re, enum, functools, collections...)",
    "import lunavect.core.services",
    "import lunavect.core.closing_question",
    "import the shim's parts (cached bytecode)",
    "import lunavect.shim.entry (cached bytecode)",
    "read stdin",
    "json.loads",
    "extract",
    "find the agent process (/proc walk)",
    "append the spool line",
]


def profile(events, env, runs: int, out_fd: int) -> str:
    from lunavect import shim

    entry_file = os.path.join(os.path.dirname(os.path.abspath(shim.__file__)), "entry.py")
    child = PHASES_CHILD.replace("SRC", repr(SRC))
    parts = []
    for payload_name in ("PreToolUse Bash", "Stop 200 KB"):
        samples: list[list[float]] = []
        for _ in range(runs):
            proc = subprocess.run(
                [sys.executable, "-I", "-S", "-c", child],
                input=events[payload_name],
                capture_output=True,
                env=env,
                check=True,
            )
            samples.append(json.loads(proc.stdout))
        medians = [statistics.median(column) for column in zip(*samples, strict=True)]
        rows = [[name, ms(value)] for name, value in zip(PHASE_NAMES, medians, strict=True)]
        rows.append(["**total after interpreter start**", f"**{ms(sum(medians))}**"])
        parts.append(
            f"Phases inside the shim, {payload_name}, median of {runs} runs (ms):\n\n" + md_table(["phase", "ms"], rows)
        )

    # -X importtime: the import graph's own self times (inflated by the tracing itself; for ranking only).
    self_times: dict[str, list[int]] = {}
    command = [sys.executable, "-X", "importtime", "-I", "-S", entry_file, "claude"]
    for _ in range(runs):
        proc = subprocess.run(command, input=events["PreToolUse Bash"], capture_output=True, env=env, check=True)
        for line in proc.stderr.decode().splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cumulative, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
            self_times.setdefault(name, []).append(int(self_us))
    ranked = sorted(((statistics.median(v), k) for k, v in self_times.items()), reverse=True)
    total = sum(value for value, _ in ranked)
    rows = [[f"`{name}`", f"{value / 1000:.2f}"] for value, name in ranked[:15]]
    rows.append([f"all {len(ranked)} modules", f"{total / 1000:.2f}"])
    parts.append(
        f"`-X importtime` of the installed command, PreToolUse, median self time of {runs} runs "
        "(tracing inflates these; use them to rank):\n\n" + md_table(["module", "self ms"], rows)
    )
    return "\n\n".join(parts)


# -- main ---------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60, help="measured runs per payload and variant (default 60)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured rounds first (default 3)")
    parser.add_argument("--breakdown", action="store_true", help="add variants that isolate what the shim costs")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="also profile the shim over N runs")
    parser.add_argument("--no-agent-parent", action="store_true", help="do not name this process 'claude'")
    parser.add_argument("--payloads", nargs="*", help="only these payloads (names as printed)")
    parser.add_argument(
        "--before", metavar="SRC", help="also run an earlier version's shim from SRC (the folder holding its lunavect)"
    )
    args = parser.parse_args()

    with agent_home("lunavect-bench-shim-", named=not args.no_agent_parent) as agent:
        env, command, named, out_fd = agent.env, agent.command, agent.named, agent.out_fd
        events = payloads(str(uuid.uuid4()), env["HOME"])
        if args.payloads:
            events = {k: v for k, v in events.items() if k in args.payloads}
        argvs = variants(command, args.breakdown)
        if args.before:
            argvs[BEFORE] = [sys.executable, "-I", "-S", "-c", BEFORE_LAUNCHER, os.path.abspath(args.before), "claude"]
        cells = [(p, v) for p in events for v in argvs]
        results = measure(cells, argvs, events, env, args.runs, args.warmup, out_fd)
        shim_cells = sum(1 for _, v in cells if v in SHIM_VARIANTS or v == BEFORE)
        spool_note = check_spool(shim_cells * (args.runs + args.warmup))
        printed = os.path.getsize(agent.out_path)
        profile_text = profile(events, env, args.profile, out_fd) if args.profile else ""

        print(f"## Hook shim: wall time per event ({args.runs} runs each, interleaved)\n")
        print(f"Machine: {machine_line()}  ")
        print(f"Installed command: `{command}`  ")
        print(
            f"Agent parent: {'this process named `claude` (as Claude Code)' if named else 'none found'}; {spool_note}."
        )
        if printed:
            print(f"WARNING: the children printed {printed} bytes (the shim must print nothing).")
        print()
        rows = []
        for payload_name in events:
            bare = statistics.median(r.wall_s for r in results[(payload_name, BARE)])
            for variant in argvs:
                runs = results[(payload_name, variant)]
                wall = [r.wall_s for r in runs]
                rows.append(
                    [
                        f"{payload_name} ({len(events[payload_name]) / 1024:.1f} KB)",
                        variant,
                        ms(statistics.median(wall)),
                        ms(p90(wall)),
                        ms(min(wall)),
                        ms(statistics.median(r.cpu_s for r in runs)),
                        f"{statistics.median(wall) / bare:.2f}x",
                    ]
                )
        print(
            md_table(["payload", "variant", "median ms", "p90 ms", "min ms", "child CPU ms", "/ bare"], rows, "llrrrrr")
        )
        print()

        rows = []
        for payload_name in events:
            pairs = zip(results[(payload_name, SHIM)], results[(payload_name, BARE)], strict=False)
            paired = [s.wall_s / b.wall_s for s, b in pairs]
            shim_med = statistics.median(r.wall_s for r in results[(payload_name, SHIM)])
            bare_med = statistics.median(r.wall_s for r in results[(payload_name, BARE)])
            ratio = shim_med / bare_med
            rows.append(
                [
                    payload_name,
                    ms(shim_med),
                    ms(bare_med),
                    ms(shim_med - bare_med),
                    f"{ratio:.2f}x",
                    f"{statistics.median(paired):.2f}x",
                    "met" if ratio <= 1.5 else "**not met**",
                ]
            )
        print("Shim (installed command) against a bare interpreter start; target <= 1.5x:\n")
        print(
            md_table(
                [
                    "payload",
                    "shim ms",
                    "bare ms",
                    "shim - bare ms",
                    "ratio of medians",
                    "median paired ratio",
                    "target",
                ],
                rows,
                "lrrrrrl",
            )
        )
        if profile_text:
            print("\n" + profile_text)


if __name__ == "__main__":
    main()
