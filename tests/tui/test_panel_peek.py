"""The panel's peek: Space opens a lower pane with the focused session's latest messages (read from the
client's own file), new records show while the pane is open, `[` adds the older window above, the pane
follows the focused row, and a reply that cannot be proven safe is refused in the panel's message line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tui_seed as seed
from tui_support import pilot_test, wait_for
from unit_support import shared_data_dir  # noqa: E402

from lunavect.frontends.tui.peek import PeekLog, PeekPane

SIZE = (120, 40)
DATA = shared_data_dir() / "claude" / "spotter"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared real transcripts are not at {DATA}")


def transcript(session_id: str, source: str = "tool_heavy.jsonl") -> Path:
    """A real transcript where Claude Code keeps this session's (found by its id)."""
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-src-lunavect"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    path.write_bytes((DATA / source).read_bytes())
    return path


def ready_session(conn, session_id: str) -> Path:
    """The one row of the list: a ready session whose transcript is a short real one."""
    path = transcript(session_id, "short.jsonl")
    seed.write(conn, [seed.session(session_id, "ready", updated=10)])
    return path


async def peek_first_row(pilot, app) -> None:
    """Space on the first row, and its messages shown."""
    await pilot.press("down", "space")
    await wait_for(pilot, lambda: len(shown(app)) > 0, what="messages")


def shown(app) -> list[str]:
    return [str(widget.render()) for widget in app.query_one(PeekLog).query("Static")]


def record(text: str) -> bytes:
    return (
        json.dumps(
            {
                "type": "assistant",
                "isSidechain": False,
                "timestamp": "2026-11-12T09:30:00Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            }
        ).encode()
        + b"\n"
    )


@pilot_test
async def test_space_peeks_live_and_pages_back(conn, make_app):
    path = transcript("p1", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    transcript("p2", "short.jsonl")
    seed.write(conn, [seed.session("p1", "working", updated=10), seed.session("p2", "ready", updated=500)])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "space")
        pane = app.query_one(PeekPane)
        await wait_for(pilot, lambda: len(shown(app)) >= 50, what="the latest window")
        assert "Background task completed" in "\n".join(shown(app))

        with path.open("ab") as out:
            out.write(record("A new message LIVE-1234"))
        await wait_for(pilot, lambda: any("LIVE-1234" in line for line in shown(app)), what="the appended record")
        assert shown(app)[-1] == "● A new message LIVE-1234"

        before = len(shown(app))
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: len(shown(app)) > before, what="the older window")
        assert "LIVE-1234" in shown(app)[-1]

        await pilot.press("escape", "down", "space")  # the next row: the pane follows it
        await wait_for(pilot, lambda: pane.session is not None and pane.session.id == "claude:p2", what="row 2")
        await wait_for(pilot, lambda: any("Interrupted" in line for line in shown(app)), what="short.jsonl")


@pilot_test
async def test_a_reply_without_a_proven_pane_is_refused(conn, make_app):
    ready_session(conn, "r1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await peek_first_row(pilot, app)
        await pilot.press("tab")
        for key in "hello":
            await pilot.press(key)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "nothing was typed" in app.panel.message, timeout=20, what=app.panel.message)


@pilot_test
async def test_esc_closes_the_peek_from_the_log_and_the_reply_box_and_the_list_has_the_focus(conn, make_app):
    ready_session(conn, "e1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        session_list = app.query_one("#sessions")
        pane = app.query_one(PeekPane)
        for keys in (("escape",), ("tab", "escape")):  # from the messages, then from the reply box
            await peek_first_row(pilot, app)
            assert pane.display and app.focused is app.query_one(PeekLog)
            await pilot.press(*keys)
            assert not pane.display and app.focused is session_list and session_list.current.id == "claude:e1"


@pytest.mark.parametrize("depth", [1100, 2000, 100_000])
@pilot_test
async def test_a_line_nested_too_deep_is_skipped_and_said(conn, make_app, depth):
    """Issue 25: a tool result nested 1,100 levels deep ended the peek in a traceback."""
    path = ready_session(conn, "d1")
    lines = path.read_bytes().splitlines(keepends=True)
    deep = ("[" * depth + "]" * depth).encode()
    path.write_bytes(b"".join([*lines[:3], b'{"type":"user","message":{"content":' + deep + b"}}\n", *lines[3:]]))
    with path.open("ab") as out:
        out.write(record("After the deep line DEEP-1234"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "space")
        await wait_for(pilot, lambda: any("DEEP-1234" in line for line in shown(app)), what="the other messages")
        assert any("Interrupted" in line for line in shown(app))  # short.jsonl's own messages, before the line
        await wait_for(
            pilot, lambda: "1 line of this conversation was skipped" in app.panel.message, what=app.panel.message
        )
