"""The panel's header shows the rate-limit window closest to its limit, as the bars do, and says when it is old."""

from __future__ import annotations

import datetime as dt

import tui_seed as seed
from tui_support import pilot_test

from lunavect.usage import limits
from lunavect.usage.limits import Limits, LimitWindow

SIZE = (140, 30)


@pilot_test
async def test_the_header_shows_the_fullest_window_and_says_when_it_is_old(conn, make_app, clock):
    resets = seed.NOW + 3600
    with conn:
        limits.record(
            conn,
            "codex",
            Limits(at=seed.NOW - 60, primary=LimitWindow(42.0, 300, resets), secondary=LimitWindow(8.0, 10080)),
        )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        note = app.query_one("#limits")
        at = dt.datetime.fromtimestamp(resets).strftime("%H:%M")
        assert str(note.render()) == f"codex 5 h 42 % · resets {at}"
        assert note.display
        clock.advance(2 * 3600)  # past the 5 h window's reset: that figure is old, the 7 d one holds
        note.refresh_note()  # type: ignore[attr-defined]
        assert str(note.render()) == "codex 7 d 8 %"


@pilot_test
async def test_no_window_no_note(conn, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one("#limits").display
