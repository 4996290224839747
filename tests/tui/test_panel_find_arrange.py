"""Find and arrange: search, provider, Active, the awaiting-input counter, the row menu, moving rows, and the
keyboard the guide describes. Every arrangement is checked in the store, where `lunavect list` reads it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import tui_seed as seed
from textual.pilot import Pilot
from tui_support import ids, lines, pilot_test, wait_for

from lunavect.frontends.tui import PanelApp
from lunavect.frontends.tui.screens import RowMenu
from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing import arrangement
from lunavect.listing.sessions import read_sessions

SIZE = (120, 30)


def three(conn) -> None:
    """Three finished sessions, newest first: n1, n2, n3."""
    seed.write(
        conn,
        [
            seed.session("n1", "ready", title="Newest", project="alpha", updated=10),
            seed.session("n2", "idle", title="Middle", project="beta", updated=20),
            seed.session("n3", "ready", title="Oldest", project="gamma", provider="codex", updated=30),
        ],
    )


@asynccontextmanager
async def open_on_three(conn, make_app) -> AsyncIterator[tuple[PanelApp, Pilot]]:
    """The panel, at this file's size, open on `three`'s sessions."""
    three(conn)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        yield app, pilot


def listed(conn) -> list[str]:
    return [s.id for s in read_sessions(conn)]


@pilot_test
async def test_search_matches_title_and_project_and_down_goes_to_the_first_row(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.press("ctrl+f")
        assert app.focused is app.query_one("#search")
        await pilot.press(*"middle")
        assert ids(app) == ["claude:n2"]
        await pilot.press(*["backspace"] * 6, *"gamma")  # a project name
        assert ids(app) == ["codex:n3"]
        await pilot.press("down")
        session_list = app.query_one("#sessions", SessionList)
        assert app.focused is session_list and session_list.current.id == "codex:n3"
        # Up on the first row goes back to the search field; "/" focuses it too.
        await pilot.press("up")
        assert app.focused is app.query_one("#search")
        await pilot.press("escape")  # clears the search and leaves the field
        assert app.focused is None
        await wait_for(pilot, lambda: len(ids(app)) == 3, what="every row again")
        assert app.query_one("#search").value == "" and app.panel.filter.search == ""
        await pilot.press("slash")
        assert app.focused is app.query_one("#search")


@pilot_test
async def test_provider_buttons_and_active(conn, make_app):
    three(conn)
    seed.write(conn, [seed.session("w", "working", title="Busy", activity="thinking", since=5)])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#provider-codex")
        assert ids(app) == ["codex:n3"]
        await pilot.click("#provider-claude")
        assert set(ids(app)) == {"claude:w", "claude:n1", "claude:n2"}
        await pilot.click("#provider-all")
        assert len(ids(app)) == 4
        await pilot.press("c")  # the keyboard cycles the same choice: Claude
        assert set(ids(app)) == {"claude:w", "claude:n1", "claude:n2"}
        await pilot.press("c")  # Codex: the cycle names only the clients the list holds
        assert ids(app) == ["codex:n3"]
        await pilot.press("c")  # then all again
        assert len(ids(app)) == 4
        assert not app.query_one("#provider-gemini").display  # no Gemini session: no button
        await pilot.click("#active")
        assert ids(app) == ["claude:w"]
        await pilot.pause(0.3)  # a button ignores a second press during its 0.2 s press effect
        await pilot.click("#active")
        assert len(ids(app)) == 4


@pilot_test
async def test_awaiting_counter_shows_only_sessions_that_need_their_person_then_all(conn, make_app):
    seed.write(conn, seed.every_state())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert "2 awaiting input" in str(app.query_one("#awaiting").render())
        assert "5 working" in str(app.query_one("#working").render())
        await pilot.click("#awaiting")
        assert sorted(ids(app)) == ["claude:a5", "claude:a6"]  # permission and input
        assert app.query_one("#awaiting").has_class("-selected")
        await pilot.click("#awaiting")
        assert len(ids(app)) == len(seed.every_state())
        await pilot.press("a")  # the same from the keyboard
        assert sorted(ids(app)) == ["claude:a5", "claude:a6"]


@pilot_test
async def test_up_down_move_focus_and_escape_clears_it(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        session_list = app.query_one("#sessions", SessionList)
        await pilot.press("down")
        assert session_list.current.id == "claude:n1"
        await pilot.press("down", "down", "down")
        assert session_list.current.id == "codex:n3"  # stays on the last row
        await pilot.press("up")
        assert session_list.current.id == "claude:n2"
        await pilot.press("escape")
        assert session_list.cursor is None and app.focused is None
        await pilot.press("down")  # from nowhere, Down goes to the first row
        assert app.focused is session_list and session_list.current.id == "claude:n1"


@pilot_test
async def test_j_and_k_move_focus_as_down_and_up_do(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        session_list = app.query_one("#sessions", SessionList)
        await pilot.press("j")  # from nowhere, to the first row, as Down
        assert app.focused is session_list and session_list.current.id == "claude:n1"
        await pilot.press("j", "j", "j")
        assert session_list.current.id == "codex:n3"
        await pilot.press("k")
        assert session_list.current.id == "claude:n2"


@pilot_test
async def test_alt_up_and_down_move_the_row_in_the_store(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        session_list = app.query_one("#sessions", SessionList)
        await pilot.press("down", "down", "down")  # Oldest, the last row
        await pilot.press("alt+up")
        assert ids(app) == ["claude:n1", "codex:n3", "claude:n2"]
        assert session_list.current.id == "codex:n3"  # the focus moves with the row
        await pilot.press("alt+up")
        assert ids(app) == ["codex:n3", "claude:n1", "claude:n2"]
        assert listed(conn) == ids(app)  # `lunavect list` agrees
        await pilot.press("alt+down", "alt+down")
        assert ids(app) == ["claude:n1", "claude:n2", "codex:n3"]
        assert listed(conn) == ids(app)


@pilot_test
async def test_a_moved_row_keeps_its_place_while_newer_activity_rises_above(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.press("down", "down", "down", "alt+up", "alt+up")
        assert ids(app) == ["codex:n3", "claude:n1", "claude:n2"]
        # The panel says when the moved row will move again.
        assert app.panel.message == f"Moved “Oldest”. {arrangement.MOVED_UNTIL}"
        seed.write(conn, [seed.session("n4", "working", title="Brand new", activity="thinking", since=1)])
        await wait_for(pilot, lambda: "claude:n4" in ids(app))
        assert ids(app) == ["claude:n4", "codex:n3", "claude:n1", "claude:n2"]


@pilot_test
async def test_mouse_drag_moves_a_row(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.mouse_down("#sessions", offset=(10, 2))  # Oldest
        await pilot.mouse_up("#sessions", offset=(10, 0))  # dropped on Newest
        await pilot.pause()
        assert ids(app) == ["codex:n3", "claude:n1", "claude:n2"]
        assert listed(conn) == ids(app)
        assert app.panel.message.startswith("Moved “Oldest”.")  # a drag is not a click: nothing was opened


@pilot_test
async def test_pinned_rows_come_first_in_the_persons_order(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        session_list = app.query_one("#sessions", SessionList)
        await pilot.press("down", "down", "down", "p")  # pin Oldest
        assert ids(app)[0] == "codex:n3" and session_list.sessions[0].pinned
        assert "⚑" in lines(app)[0]
        await pilot.press("down", "down", "p")  # pin Middle: after the first pin
        assert ids(app) == ["codex:n3", "claude:n2", "claude:n1"]
        await pilot.press("alt+up")  # Middle above Oldest, among the pinned
        assert ids(app) == ["claude:n2", "codex:n3", "claude:n1"]
        await pilot.press("down", "alt+down")  # Oldest cannot leave the pinned group
        assert ids(app) == ["claude:n2", "codex:n3", "claude:n1"]
        assert listed(conn) == ids(app)


@pilot_test
async def test_row_menu_pin_copy_resume_folder_and_hide(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.press("down", "down", "m")  # Middle
        assert isinstance(app.screen, RowMenu)
        options = app.screen.query_one("#menu-options")
        actions = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert actions == ["open", "pin", "hide", "move_up", "move_down", "folder", "copy_resume"]
        await pilot.press("down", "enter")  # Pin
        assert not isinstance(app.screen, RowMenu)
        assert ids(app)[0] == "claude:n2"
        await pilot.press("m", *["down"] * 6, "enter")  # Copy the resume command
        assert app.clipboard == "cd /home/dev/src/beta && claude --resume n2"
        assert "Copied" in app.panel.message
        await pilot.press("m", *["down"] * 5, "enter")  # Open the project folder (none here: its path)
        assert "/home/dev/src/beta" in app.panel.message
        await pilot.press("m", "down", "down", "enter")  # Hide
        assert "claude:n2" not in ids(app)
        assert "claude:n2" not in listed(conn)


@pilot_test
async def test_right_click_opens_the_row_menu_and_escape_closes_it(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.click("#sessions", offset=(10, 1), button=3)
        assert isinstance(app.screen, RowMenu) and app.screen.session.id == "claude:n2"
        await pilot.press("escape")
        assert not isinstance(app.screen, RowMenu)
        assert ids(app) == ["claude:n1", "claude:n2", "codex:n3"]  # nothing changed


@pilot_test
async def test_arrangement_made_elsewhere_shows_in_the_open_panel(conn, make_app):
    async with open_on_three(conn, make_app) as (app, pilot):
        arrangement.pin(conn, "codex:n3")  # e.g. `lunavect pin` from a script
        await wait_for(pilot, lambda: ids(app)[0] == "codex:n3", timeout=3)
        arrangement.hide(conn, "claude:n1", seed.NOW)
        await wait_for(pilot, lambda: "claude:n1" not in ids(app), timeout=3)


@pilot_test
async def test_row_menu_dismisses_a_ready_reply_without_hiding_it(conn, make_app):
    """Nothing acknowledged a ready or error row except hiding it, which hides its later work too (issue 48,
    items 4 and 12): the menu's Dismiss keeps the row listed and takes it out of what needs the person."""
    async with open_on_three(conn, make_app) as (app, pilot):
        await pilot.press("down", "m")  # Newest: a ready reply
        options = app.screen.query_one("#menu-options")
        actions = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert actions == ["open", "pin", "hide", "dismiss", "move_up", "move_down", "folder", "copy_resume"]
        assert str(options.get_option_at_index(3).prompt) == "Dismiss (seen)"
        await pilot.press(*["down"] * 3, "enter")
        await wait_for(pilot, lambda: next(s for s in read_sessions(conn) if s.id == "claude:n1").dismissed)
        assert "Dismissed “Newest”" in app.panel.message
        assert "claude:n1" in ids(app) and "claude:n1" in listed(conn)  # still listed
        await pilot.press("m")
        options = app.screen.query_one("#menu-options")
        assert str(options.get_option_at_index(3).prompt) == "Needs me again"
        await pilot.press(*["down"] * 3, "enter")
        await wait_for(pilot, lambda: not next(s for s in read_sessions(conn) if s.id == "claude:n1").dismissed)
        await pilot.press("down", "m")  # Middle, idle: nothing to dismiss
        options = app.screen.query_one("#menu-options")
        assert "dismiss" not in [options.get_option_at_index(i).id for i in range(options.option_count)]
