"""Make the panel's screenshots in this folder: the panel on seeded sessions at a fixed time, 120x30.

Run: .venv/bin/python docs/screenshots/make.py   (everything happens in a temporary LUNAVECT_HOME)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
SIZE = (120, 30)


async def shoot(name: str, scene, setup=None) -> None:
    import tui_seed as seed

    from lunavect import store
    from lunavect.collector.setup_probe import report_of
    from lunavect.frontends.tui import PanelApp
    from lunavect.listing import arrangement

    folder = tempfile.mkdtemp(prefix="lunavect-shots-")
    os.environ.update(
        HOME=folder,
        CLAUDE_CONFIG_DIR=f"{folder}/.claude",
        CODEX_HOME=f"{folder}/.codex",
        LUNAVECT_HOME=f"{folder}/lunavect",
    )
    try:
        conn = store.connect()
        if setup is not None:
            setup(conn, seed, arrangement)
        app = PanelApp(
            clock=lambda: seed.NOW,
            start_collector=False,
            setup=lambda: report_of({"claude": (True, "missing")}),
        )
        async with app.run_test(size=SIZE, tooltips=True) as pilot:
            await pilot.pause()
            await scene(pilot)
            await pilot.pause(0.3)
            app.save_screenshot(f"{name}.svg", str(HERE))
        conn.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def many(conn, seed, arrangement) -> None:
    seed.write(conn, seed.every_state())
    arrangement.pin(conn, "claude:a3")
    arrangement.pin(conn, "codex:b1")
    arrangement.hide(conn, "claude:b5", seed.NOW - 3600)
    arrangement.hide(conn, "codex:b2", seed.NOW - 7200)


def mixed(conn, seed, arrangement) -> None:
    """Sessions of the four clients side by side, each in the states its evidence gives."""
    import msgspec

    from lunavect.core.resume_command import display_command

    rows = [
        seed.session("m1", "working", title="Refactor the store layer", activity="Bash", since=42),
        seed.session("m2", "permission", title="Delete the build cache", project="infra", waiting_for="Bash", since=30),
        seed.session("m3", "ready", title="Explain the collector", provider="codex", project="api", updated=400),
        seed.session(
            "m4", "working", title="Port the parser", provider="gemini", activity="run_shell_command", since=75
        ),
        seed.session(
            "m5", "input", title="Which schema to keep?", provider="gemini", waiting_for="question", updated=95
        ),
        seed.session(
            "m6",
            "working",
            title="Write the migration",
            provider="opencode",
            project="infra",
            activity="bash",
            since=12,
        ),
        seed.session(
            "m7", "error", title="Summarise the tracker", provider="opencode", project="web", error="auth", updated=900
        ),
        seed.session("m8", "idle", title="Sketch the sync protocol", provider="codex", project="api", updated=7200),
    ]
    seed.write(
        conn, [msgspec.structs.replace(s, resume=display_command(s.provider, s.session_id, s.cwd)) for s in rows]
    )


async def main() -> None:
    async def rows(pilot):
        await pilot.press(*["down"] * 8)  # "Run the test suite": the capsule's row
        await pilot.hover("#sessions", offset=(30, 7))
        await pilot.hover("#sessions", offset=(31, 7))  # the tooltip was set by the first move
        await pilot.pause(1.2)  # the tooltip with the background tasks by kind

    async def awaiting(pilot):
        await pilot.press("a")

    async def menu(pilot):
        await pilot.press("down", "down", "down", "m")

    async def hidden(pilot):
        await pilot.press("h")
        await pilot.pause(0.3)
        await pilot.press("down")

    async def nothing(pilot):
        return None

    await shoot("panel", rows, many)
    await shoot("panel-awaiting", awaiting, many)
    await shoot("panel-menu", menu, many)
    await shoot("panel-hidden", hidden, many)
    await shoot("panel-empty", nothing)
    await shoot("panel-mixed", nothing, mixed)


if __name__ == "__main__":
    asyncio.run(main())
