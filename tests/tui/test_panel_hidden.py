"""Hiding: Delete hides, Ctrl+Z undoes while the panel is open, the hidden view restores, hidden work still
counts, automatic hiding from the settings; and what reopening the panel keeps."""

from __future__ import annotations

import tui_seed as seed
from tui_support import ids, pilot_test, wait_for

from lunavect import store
from lunavect.core.hiding import DAY_S
from lunavect.frontends.tui.preferences import FILTER_SETTING
from lunavect.frontends.tui.screens import HiddenScreen, SettingsScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing import arrangement
from lunavect.listing.sessions import auto_hide_after, counts, read_hidden, read_sessions

SIZE = (120, 30)


def sessions(conn) -> None:
    seed.write(
        conn,
        [
            seed.session("w", "working", title="Busy build", activity="Bash", since=20),
            seed.session("r", "ready", title="Done reply", updated=30),
            seed.session("i", "idle", title="Quiet one", updated=40),
        ],
    )


@pilot_test
async def test_delete_hides_and_ctrl_z_restores_while_the_panel_is_open(conn, make_app):
    sessions(conn)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.check_action("undo", ()) is False  # no Undo in the footer before a hide
        await pilot.press("down", "delete")  # hide the working session
        assert "claude:w" not in ids(app)
        assert [s.id for s in read_hidden(conn)] == ["claude:w"]
        assert "Hid “Busy build”" in app.panel.message and "Undo" in app.panel.message
        # Hiding never cancels work: the hidden session still counts as working.
        assert counts(conn)["working"] == 1
        assert "1 working" in str(app.query_one("#working").render())
        assert app.check_action("undo", ()) is True
        # The focus stays where the hidden row was: on the row that took its place.
        assert app.query_one("#sessions", SessionList).current.id == "claude:r"
        await pilot.press("delete")  # and a second one
        assert ids(app) == ["claude:i"]
        await pilot.press("ctrl+z")
        assert ids(app) == ["claude:r", "claude:i"]
        await pilot.press("ctrl+z")
        assert ids(app) == ["claude:w", "claude:r", "claude:i"]
        assert read_hidden(conn) == []
        await pilot.press("ctrl+z")  # nothing left to undo: nothing happens
        assert ids(app) == ["claude:w", "claude:r", "claude:i"]


@pilot_test
async def test_undo_does_not_outlive_the_panel(conn, make_app):
    sessions(conn)
    first = make_app()
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("down", "delete")
    second = make_app()
    async with second.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+z")
        assert "claude:w" not in ids(second)


@pilot_test
async def test_hidden_view_reviews_and_restores(conn, make_app):
    sessions(conn)
    arrangement.hide(conn, "claude:r", seed.NOW - 60)
    arrangement.hide(conn, "claude:w", seed.NOW - 60)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert str(app.query_one("#hidden").label) == "Hidden 2"
        await pilot.press("h")
        assert isinstance(app.screen, HiddenScreen)
        await wait_for(pilot, lambda: len(app.screen.query_one(SessionList).sessions) == 2)
        assert ids(app, "#hidden-sessions") == ["claude:w", "claude:r"]
        await pilot.press("down", "enter")  # restore the first
        assert ids(app, "#hidden-sessions") == ["claude:r"]
        assert "Restored" in app.panel.message
        await pilot.press("escape", "escape")  # clear the row focus, then leave the view
        assert not isinstance(app.screen, HiddenScreen)
        assert ids(app) == ["claude:w", "claude:i"]
        assert [s.id for s in read_sessions(conn)] == ["claude:w", "claude:i"]


@pilot_test
async def test_automatic_hiding_is_off_until_set_and_never_hides_work(conn, make_app, clock):
    seed.write(
        conn,
        [
            seed.session("old-ready", "ready", title="Old reply", updated=2 * DAY_S),
            seed.session("old-working", "working", activity="thinking", since=2 * DAY_S, updated=2 * DAY_S),
            seed.session("old-wait", "permission", waiting_for="Bash", updated=2 * DAY_S),
            seed.session("old-unknown", "unknown", updated=2 * DAY_S),
            seed.session("fresh", "idle", updated=60),
        ],
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert auto_hide_after(conn) is None  # a new installation: off
        assert len(ids(app)) == 5
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        await pilot.click("#auto-hide-2")  # "After 1 day"
        assert auto_hide_after(conn) == DAY_S
        await pilot.press("escape")
        assert "claude:old-ready" not in ids(app)
        assert set(ids(app)) == {"claude:old-working", "claude:old-wait", "claude:old-unknown", "claude:fresh"}
        assert "Hidden 1" == str(app.query_one("#hidden").label)
        clock.advance(DAY_S)  # a day later the fresh idle one goes too
        app.reload()
        assert "claude:fresh" not in ids(app)
        await pilot.press("s")
        await pilot.click("#auto-hide-off")
        await pilot.press("escape")
        assert len(ids(app)) == 5


@pilot_test
async def test_reopening_keeps_search_and_filters_and_returns_to_current_sessions(conn, make_app):
    sessions(conn)
    # A second client's session: the client buttons show once the list holds two clients.
    seed.write(conn, [seed.session("x", "ready", title="Codex reply", provider="codex", updated=50)])
    first = make_app()
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", *"quiet", "enter")  # Enter leaves the search as it is (Esc would clear it)
        await pilot.click("#provider-claude")
        await pilot.press("down", "delete")  # a message at the top
        assert first.panel.message
        await pilot.press("h")  # and the hidden view is open when the panel closes
        assert isinstance(first.screen, HiddenScreen)
    assert store.get_setting(conn, FILTER_SETTING)
    second = make_app()
    async with second.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not isinstance(second.screen, HiddenScreen)  # back to current sessions
        assert second.query_one("#search").value == "quiet"
        assert second.panel.filter.provider == "claude"
        assert second.query_one("#provider-claude").has_class("-selected")
        assert second.panel.message == ""
        assert not second.query_one("#message").has_class("-shown")


@pilot_test
async def test_an_empty_list_explains_itself(conn, make_app):
    from lunavect.collector.setup_probe import report_of

    app = make_app(setup=lambda: report_of({"claude": (True, "missing")}))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = str(app.query_one("#empty").render())
        assert "No sessions yet." in text
        assert "Clients found: Claude Code" in text
        assert "Claude Code hooks: missing." in text
        assert "lunavect hooks install" in text
    installed = make_app(setup=lambda: report_of({"claude": (True, "installed"), "codex": (True, "missing")}))
    async with installed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = str(installed.query_one("#empty").render())
        assert "Clients found: Claude Code, Codex" in text and "hooks: installed" in text
        assert "Codex hooks: missing. Codex sessions still appear from their rollouts." in text
        seed.write(conn, [seed.session("x", "working", activity="thinking", since=1)])
        await wait_for(pilot, lambda: ids(installed) == ["claude:x"])
        assert not installed.query_one("#empty").has_class("-shown")


@pilot_test
async def test_a_filter_that_matches_nothing_says_so(conn, make_app):
    sessions(conn)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", *"zzz")
        text = str(app.query_one("#empty").render())
        assert "No session is matching “zzz”" in text and "3 in the list" in text
