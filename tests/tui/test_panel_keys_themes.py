"""The panel as people expect a terminal tool to be: `?` shows every key, read from the bindings themselves;
Ctrl+P opens Textual's command palette; the theme chosen there is kept in the store for the next opening."""

from __future__ import annotations

import tui_seed as seed
from textual.command import CommandPalette
from textual.widgets import Static
from tui_support import pilot_test, wait_for

from lunavect.frontends.tui import PanelApp, preferences
from lunavect.frontends.tui.keys_screen import KeysScreen, _shown
from lunavect.frontends.tui.panel_screen import PanelScreen
from lunavect.frontends.tui.session_list import SessionList

SIZE = (120, 40)


def text_of(screen: KeysScreen) -> str:
    return "\n".join(str(widget.render()) for widget in screen.query(Static))


@pilot_test
async def test_question_mark_shows_every_key_the_panel_has(conn, make_app):
    seed.write(conn, seed.every_state())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen))
        text = text_of(app.screen)
        for group in (PanelScreen.BINDINGS, SessionList.BINDINGS, PanelApp.BINDINGS):
            for binding in group:
                for key in binding.key.split(","):
                    assert _shown(key) in text, key
        assert "j" in text and "k" in text and "Ctrl+P" in text and "Commands and themes" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, PanelScreen))


@pilot_test
async def test_the_footer_offers_the_keys_screen(conn, make_app):
    """A person who has not read the docs finds `?` where every terminal tool shows its keys: the footer."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = {(item.key_display, item.description) for item in app.screen.query("FooterKey")}
        assert ("?", "Keys") in keys, keys


@pilot_test
async def test_ctrl_p_opens_the_command_palette(conn, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))


@pilot_test
async def test_the_chosen_theme_is_kept_for_the_next_opening(conn, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme != "textual-light"
        app.theme = "textual-light"  # as the palette's "Change theme" sets it
        await wait_for(pilot, lambda: preferences.stored_theme(conn) == "textual-light")
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "textual-light"


@pilot_test
async def test_a_theme_this_textual_lacks_is_ignored(conn, make_app):
    preferences.keep_theme(conn, "no-such-theme")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
