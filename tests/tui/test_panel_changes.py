"""A change in the store redraws what changed: the changed row's line alone when every row keeps its place, the
whole list when a row moves; the list stays in the order and filter a fresh read gives."""

from __future__ import annotations

import tui_seed as seed
from tui_support import ids, lines, pilot_test, record_drawn_lines, wait_for

from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing.sessions import read_sessions

SIZE = (120, 30)


def rows(count: int) -> list:
    return [seed.session(f"r{n:02}", "ready", updated=60 + n) for n in range(count)]


@pilot_test
async def test_a_state_change_in_place_redraws_that_line_alone(conn, make_app, monkeypatch):
    seed.write(conn, rows(20))
    drawn = record_drawn_lines(monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(ids(app)) == 20)
        await pilot.pause(0.5)
        widget = app.query_one("#sessions", SessionList)
        first = list(widget.sessions)
        drawn.clear()
        # Another connection commits r05 as working; its last activity is unchanged, so it keeps its place.
        seed.write(conn, [seed.session("r05", "working", activity="Bash", since=3, updated=65)])
        await wait_for(pilot, lambda: any("Working: Bash" in line for line in drawn), timeout=60)
        await pilot.pause(0.3)
        assert ids(app) == [s.id for s in first]
        assert all("Session r05" in line for line in drawn), drawn
        # The rows that did not change are the same objects as before the change.
        changed = [n for n, (a, b) in enumerate(zip(first, widget.sessions, strict=True)) if a is not b]
        assert [widget.sessions[n].id for n in changed] == ["claude:r05"]


@pilot_test
async def test_a_row_whose_activity_is_newer_moves_to_the_top_and_filters_hold(conn, make_app, clock):
    seed.write(conn, rows(12))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(ids(app)) == 12)
        await pilot.press("ctrl+f")
        await pilot.press(*"r1")  # r10 and r11
        await wait_for(pilot, lambda: ids(app) == ["claude:r10", "claude:r11"])
        await pilot.press("enter")  # leaves the search as it is (Esc would clear it)
        seed.write(conn, [seed.session("r11", "working", activity="Bash", since=1)])
        await wait_for(pilot, lambda: ids(app) == ["claude:r11", "claude:r10"], timeout=60)
        assert "Working: Bash" in lines(app)[0]
        seed.write(conn, [seed.session("r03", "working", since=1, updated=0)])
        await wait_for(pilot, lambda: app.panel.sessions[0].id == "claude:r03", timeout=60)
        # The search still narrows the list: r03 does not match it.
        assert ids(app) == ["claude:r11", "claude:r10"]
        assert [s.id for s in app.panel.sessions] == [
            s.id for s in read_sessions(conn, include_hidden=True, now=clock())
        ]


@pilot_test
async def test_the_tick_rests_while_no_timer_shows_and_wakes_with_one(conn, make_app, clock, monkeypatch):
    seed.write(conn, rows(3))
    drawn = record_drawn_lines(monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(ids(app)) == 3)
        # No running timer and no clock rule (automatic hiding off, nothing hidden): the one-second tick pauses.
        await wait_for(pilot, lambda: app._ticker is not None and not app._ticker._active.is_set(), timeout=30)
        seed.write(conn, [seed.session("r01", "working", activity="Bash", since=5, updated=0)])
        await wait_for(pilot, lambda: any(line.rstrip().endswith("5s") for line in drawn), timeout=60)
        assert app._ticker._active.is_set()  # drawing the timer woke it
        clock.advance(3)  # nothing changes in the store: only the tick can redraw the timer
        await wait_for(pilot, lambda: any(line.rstrip().endswith("8s") for line in drawn), timeout=30)


@pilot_test
async def test_a_tick_while_the_app_closes_ends_nothing(conn, make_app):
    """The one-second tick can fire once the app's screens are gone (it failed a CI run with "No screens on
    stack"): it does nothing then."""
    seed.write(conn, [seed.session("r01", "working", activity="Bash", since=5, updated=0)])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(ids(app)) == 1)
    assert not app.screen_stack
    app._tick()
    app._judge_freshness()
