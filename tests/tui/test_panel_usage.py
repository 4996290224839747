"""The usage column (`t`): each session's tokens and context fill, exactly as the store has them; kept on between
openings of the panel, and gone again with `t`."""

from __future__ import annotations

import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect import store
from lunavect.core.tokens import Tokens
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.preferences import USAGE_COLUMN_SETTING
from lunavect.frontends.tui.session_list import SessionList
from lunavect.usage import ledger

SIZE = (120, 30)
# What the collector would have recorded from u1's transcript: 1,200 in, 3,400 out, 500,000 read from the cache,
# 20,000 written to it; the last request 106,100 tokens of a 200,000 window.
TOKENS = Tokens(1_200, 3_400, 500_000, 20_000)
SHOWN = "524.6k · 53 %"  # 524,600 tokens; 106,100 / 200,000 = 53.05 %


def header(app) -> str:
    return app.screen.query_one(ColumnHeader).render_line(0).text


def row(app, key: str) -> str:
    widget = app.screen.query_one("#sessions", SessionList)
    index = next(i for i, s in enumerate(widget.sessions) if s.id == key)
    return widget.render_line(index - int(widget.scroll_offset.y)).text


def seed_usage(conn) -> None:
    seed.write(conn, [seed.session("u1", "ready", updated=30), seed.session("u2", "idle", updated=90)])
    path = "/home/dev/.claude/projects/p/u1.jsonl"
    ledger.record(conn, path, "claude:u1", [ledger.Delta(int(seed.NOW // 3600 * 3600), "m", False, TOKENS)])
    ledger.set_state(conn, path, "claude:u1", "claude-sonnet-4-5", 106_100, 200_000, seed.NOW)
    conn.commit()


@pilot_test
async def test_the_usage_column_shows_the_exact_figures_persists_and_goes_away(conn, make_app):
    seed_usage(conn)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Session u1" in row(app, "claude:u1"))
        assert "USAGE" not in header(app) and SHOWN not in row(app, "claude:u1")
        await pilot.press("t")
        await wait_for(pilot, lambda: "USAGE" in header(app))
        assert row(app, "claude:u1").rstrip().endswith(f"{SHOWN}    ● now")  # then open or ended, and since when
        # A session whose files hold no usage shows nothing there, not a zero.
        assert "·" not in row(app, "claude:u2") and " 0 " not in row(app, "claude:u2")
    assert store.get_setting(conn, USAGE_COLUMN_SETTING) == "1"

    app = make_app()  # the panel opened again keeps it
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: SHOWN in row(app, "claude:u1"))
        assert "USAGE" in header(app)
        await pilot.press("t")
        await wait_for(pilot, lambda: "USAGE" not in header(app))
        assert SHOWN not in row(app, "claude:u1") and "524.6k" not in row(app, "claude:u1")
    assert store.get_setting(conn, USAGE_COLUMN_SETTING) is None
