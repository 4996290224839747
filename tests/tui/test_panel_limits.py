"""The panel's header shows the rate-limit window closest to its limit, as the bars do, and says when it is old."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest
import tui_seed as seed
from tui_support import pilot_test

from lunavect.install.statusline import wrapper_command
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
        assert str(note.render()) == f"codex 5 h 42 % · resets {at} · pace unknown"  # one report: no pace yet
        assert note.display
        clock.advance(2 * 3600)  # past the 5 h window's reset: that figure is old, the 7 d one holds
        note.refresh_note()  # type: ignore[attr-defined]
        assert str(note.render()) == "codex 7 d 8 % · lasts to reset"  # and it did not grow in the last hour


@pilot_test
async def test_the_header_says_how_long_the_fullest_window_lasts_at_the_pace_of_the_last_hour(conn, make_app, clock):
    """Two Codex reports an hour apart, 30 % then 60 %: at 30 points an hour, the 40 left last 1 h 20 m, before the
    reset in 4 h; when the figure stops growing, the window lasts to its reset."""
    resets = seed.NOW + 4 * 3600
    with conn:
        for at, used in ((seed.NOW - 3600, 30.0), (seed.NOW, 60.0)):
            limits.record(conn, "codex", Limits(at=at, primary=LimitWindow(used, 300, resets)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        note = app.query_one("#limits")
        at = dt.datetime.fromtimestamp(resets).strftime("%H:%M")
        assert str(note.render()) == f"codex 5 h 60 % · resets {at} · runs out in 1 h 20 m"
        clock.advance(3600)  # an hour without a new report: the figure held
        note.refresh_note()  # type: ignore[attr-defined]
        assert str(note.render()) == f"codex 5 h 60 % · resets {at} · lasts to reset"


@pilot_test
async def test_no_window_no_note(conn, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one("#limits").display


@pytest.mark.process
@pytest.mark.parametrize(
    "five_hour",
    [{"used_percentage": 95, "resets_at": 1e300}, {"used_percentage": 95, "resets_at": 1.8e12}],
    ids=["1e300", "milliseconds"],
)
@pilot_test
async def test_a_hostile_status_line_through_the_wrapper_leaves_the_panel_starting(conn, make_app, five_hour):
    """The figures as Claude Code would pipe them into the real wrapper: the reset is no time, the rest holds."""
    data = json.dumps({"rate_limits": {"five_hour": five_hour, "seven_day": {"used_percentage": 1e308}}}).encode()
    done = subprocess.run(["/bin/sh", "-c", wrapper_command(None)], input=data, env=dict(os.environ), check=False)
    assert done.returncode == 0
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(app.query_one("#limits").render()) == "claude 5 h 95 % · pace unknown"
