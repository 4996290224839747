"""What lunavect's hooks cost a real Codex turn: none, the command `true` as every hook, and lunavect's shim.

The real pinned Codex CLI (found by the client tests' harness, tests/support/codex_harness.py) runs one
`codex exec` turn against the scripted Responses API: 50 `exec_command` calls of `true` in a row, then a reply,
so 50 PreToolUse and 50 PostToolUse events plus the turn's own (SessionStart, UserPromptSubmit, Stop). Each
home has its own collector running (`lunavect daemon`, as on a person's machine), and each round runs, in
rotating order after one warm-up round:

- none:  no hooks at all (the baseline);
- true:  every event lunavect installs runs the command `true` instead (trusted the same way): what Codex
         itself spends around a hook, the floor of any hook;
- shim:  `lunavect hooks install`, the installed command (`python -I -S -c ...` importing the shim) on every
         event.

    .venv/bin/python bench/codex_hooks.py --runs 7

Then, to see the shim's own start-up beside a bare interpreter, bench/hook_shim.py (its Codex payloads are
the same code path: the client name is the shim's only argument).

Not a test: it prints a Markdown table (wall time of the whole `codex exec`, median and p90, the ratio to none,
and per hook: (variant - none) / number of hook runs) for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
from claude_tmux import IsoHome, ensure_clients  # noqa: E402
from codex_harness import codex_env, rollouts, run_exec, write_config  # noqa: E402
from responses_server import ResponsesServer, exec_command, message  # noqa: E402

from _benchlib import SRC, compile_tree, machine_line, md_table, ms, p90  # noqa: E402

TOOL_CALLS = 50
VARIANTS = ("none", "true", "shim")


def lunavect(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "lunavect", *args], env=env, check=True, capture_output=True)
    return done.stdout.decode()


def trust_every_hook(env: dict[str, str]) -> None:
    """Have Codex trust every handler of hooks.json, not only lunavect's (as `hooks install` trusts its own)."""
    from lunavect.clients.codex import install

    saved = dict(os.environ)
    os.environ.update(env)
    real = install.is_ours
    install.is_ours = lambda handler: True  # type: ignore[assignment]
    try:
        found = install.trust()
    finally:
        install.is_ours = real  # type: ignore[assignment]
        os.environ.clear()
        os.environ.update(saved)
    assert found.state == "trusted", found


def set_up(iso: IsoHome, env: dict[str, str], name: str) -> int:
    """Set the home up as `name` says, start its collector; how many hook runs a turn makes."""
    hooks = iso.codex_dir / "hooks.json"
    if name == "none":
        hooks.unlink(missing_ok=True)
    else:
        out = lunavect(env, "hooks", "install")
        assert "(trusted)" in out, out
        if name == "true":
            settings = json.loads(hooks.read_text())
            for groups in settings["hooks"].values():
                for group in groups:
                    for handler in group["hooks"]:
                        handler["command"] = "true"
            hooks.write_text(json.dumps(settings, indent=2))
            trust_every_hook(env)
    lunavect(env, "list")  # starts the collector
    if name == "none":
        return 0
    events = set(json.loads(hooks.read_text())["hooks"])
    per_tool = len(events & {"PreToolUse", "PostToolUse"})
    return TOOL_CALLS * per_tool + len(events & {"SessionStart", "UserPromptSubmit", "Stop"})


def one_turn(paths, iso: IsoHome, env: dict[str, str], server: ResponsesServer) -> float:  # noqa: ANN001
    server.script(*[exec_command("true") for _ in range(TOOL_CALLS)], message("done"))
    start = time.perf_counter()
    done = run_exec(paths, env, iso.work, "run true fifty times", timeout=300)
    wall = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    compile_tree(SRC)
    paths = ensure_clients()
    if paths.codex is None:
        raise SystemExit("the pinned Codex CLI is not installed (run the client tests once)")
    homes = {}
    servers = {}
    try:
        for name in VARIANTS:
            servers[name] = ResponsesServer().__enter__()
            iso = IsoHome.create(prefix=f"lv-codex-{name}-")
            write_config(iso, servers[name])
            env = codex_env(iso, paths)
            homes[name] = (iso, env, set_up(iso, env, name))
        print(f"Machine: {machine_line()}")
        times: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for round_ in range(args.runs + 1):
            order = list(VARIANTS[round_ % len(VARIANTS) :] + VARIANTS[: round_ % len(VARIANTS)])
            for name in order:
                iso, env, _ = homes[name]
                wall = one_turn(paths, iso, env, servers[name])
                if round_:  # the first round warms the caches up
                    times[name].append(wall)
        base = statistics.median(times["none"])
        rows = []
        for name in VARIANTS:
            median = statistics.median(times[name])
            hooks = homes[name][2]
            per_hook = (median - base) / hooks if hooks else float("nan")
            rows.append(
                [
                    name,
                    str(hooks),
                    ms(median),
                    ms(p90(times[name])),
                    f"{median / base:.3f}x",
                    "-" if not hooks else ms(per_hook),
                ]
            )
        print(f"\nMachine at the end: {machine_line()}\n")
        print(md_table(["hooks", "hook runs a turn", "median ms", "p90 ms", "ratio to none", "per hook ms"], rows))
        shim, true = statistics.median(times["shim"]), statistics.median(times["true"])
        print(f"\nlunavect's part per hook run (shim - true): {ms((shim - true) / max(1, homes['shim'][2]))} ms")
        print(f"rollouts written: {', '.join(str(len(rollouts(homes[n][0]))) for n in VARIANTS)}")
    finally:
        for iso, _env, _hooks in homes.values():
            iso.cleanup()  # stops every process left under the home: its collector too
        for server in servers.values():
            server.__exit__(None, None, None)


if __name__ == "__main__":
    main()
