"""The panel is a screen over a plain app, and its views work together through messages: the hidden view, a
screen of its own, still answers the list's keys and its rows' menu; no widget reaches into the app for
another one."""

from __future__ import annotations

import re
from pathlib import Path

import tui_seed as seed
from textual.app import App
from tui_support import ids, pilot_test, wait_for

import lunavect.frontends.tui as tui
from lunavect.frontends.tui import PanelApp
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.panel_screen import PanelScreen
from lunavect.frontends.tui.screens import HiddenScreen, RowMenu
from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing import arrangement
from lunavect.listing.sessions import read_hidden

SIZE = (120, 30)


@pilot_test
async def test_the_panel_is_a_screen_over_a_plain_app(conn, make_app):
    assert PanelApp.__bases__ == (App,)  # no mixins: the app keeps the store, the feed, the clock, the screens
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen_stack == [app.panel] and isinstance(app.panel, PanelScreen)
        await pilot.press("h")
        assert isinstance(app.screen, HiddenScreen) and app.screen_stack[0] is app.panel


def test_no_widget_reaches_into_the_app_for_another():
    """Attributes down, messages up: a widget tells its screen what happened; it never queries the app's DOM."""
    reaching = re.compile(r"\bapp\.(query|query_one|query_exactly_one)\(")
    found = [
        f"{path.name}:{number}"
        for path in sorted(Path(tui.__file__).parent.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if reaching.search(line)
    ]
    assert found == []


def header(app) -> str:
    return app.screen.query_one(ColumnHeader).render_line(0).text


@pilot_test
async def test_the_lists_keys_work_on_the_hidden_view_too(conn, make_app):
    seed.write(
        conn,
        [
            seed.session("p", "permission", title="Needs a yes", waiting_for="Bash", updated=10),
            seed.session("r", "ready", title="Done reply", updated=30),
            seed.session("h", "idle", title="Put away", updated=40),
        ],
    )
    arrangement.hide(conn, "claude:h", seed.NOW - 60)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "down", "delete")  # hide "Done reply" from the list: Ctrl+Z can bring it back
        assert ids(app) == ["claude:p"]
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HiddenScreen) and len(ids(app, "#hidden-sessions")) == 2)
        awaiting = app.screen.query_one("#awaiting")

        await pilot.press("a")  # awaiting input only: the hidden view's counter shows it too
        assert app.panel.filter.awaiting and awaiting.has_class("-selected")
        await pilot.press("a")
        assert not app.panel.filter.awaiting and not awaiting.has_class("-selected")

        await pilot.press("t")  # the usage column, on this view's list as well
        await wait_for(pilot, lambda: "USAGE" in header(app))
        await pilot.press("t")
        await wait_for(pilot, lambda: "USAGE" not in header(app))

        assert app.check_action("undo", ())
        await pilot.press("ctrl+z")  # the hide made on the list is undone from here
        assert "Restored “Done reply”" in app.panel.message
        assert ids(app, "#hidden-sessions") == ["claude:h"] and [s.id for s in read_hidden(conn)] == ["claude:h"]
        assert isinstance(app.screen, HiddenScreen)

        await pilot.press("down", "escape", "down")  # Esc: no row has the focus; Down gives it to the first
        assert app.focused is app.screen.query_one(SessionList) and app.screen.query_one(SessionList).cursor == 0

        await pilot.press("m")  # the row menu of a hidden row, whose first action restores it
        assert isinstance(app.screen, RowMenu)
        assert app.screen.query_one("#menu-options").get_option_at_index(0).id == "restore"
        await pilot.press("enter")
        assert isinstance(app.screen, HiddenScreen) and ids(app, "#hidden-sessions") == []
        assert "Restored “Put away” to the list." in app.panel.message
        assert app.screen.query_one("#message").has_class("-shown")  # the message line shows on this view too

        await pilot.click("#awaiting")  # the counter leaves the view for the list, filtered
        assert not isinstance(app.screen, HiddenScreen)
        assert app.panel.filter.awaiting and ids(app) == ["claude:p"]
        assert read_hidden(conn) == []
