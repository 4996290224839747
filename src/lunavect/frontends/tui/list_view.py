"""The panel's list and what surrounds it: reading the store again, then redrawing the list, the counters, the
filter buttons, the empty list's explanation and the hidden view, through the person's filter and preferences
(the search and filters, the usage column), which are kept in the store between openings.

Kept apart from the panel's layout, feed and keys (app.py); the panel inherits it.
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Callable

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Static

from lunavect import store
from lunavect.collector import setup_report
from lunavect.core.model import Session
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.filters import Filter, SearchKeys
from lunavect.frontends.tui.row_actions import RowActions
from lunavect.frontends.tui.screens import HiddenScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.frontends.tui.widgets import PanelHeader
from lunavect.listing.hosts import not_current_note
from lunavect.listing.sessions import RowMemo, auto_hide_after, count_sessions, read_sessions

# Where the search and filters are kept between openings of the panel.
FILTER_SETTING = "panel.filter"
# "1" while the person wants the usage column (tokens and context fill), kept beside the filters.
USAGE_COLUMN_SETTING = "panel.usage_column"


class ListView(RowActions):
    """Reading and drawing the list; `PanelApp` provides the store, the clock, the screens and the messages."""

    filter: Filter
    usage_column: bool
    setup: Callable[[], setup_report.SetupReport | None]
    _memo: RowMemo
    _last_reload: float
    _clock_matters: bool
    _split_of: list[Session] | None = None
    _split_lists: tuple[list[Session], list[Session]] = ([], [])
    _search_keys: SearchKeys
    # The screens whose lists are set up, with the usage column setting they have.
    _prepared: weakref.WeakKeyDictionary[Screen[object], bool]

    def reload(self) -> None:
        """Read the list again and redraw what changed."""
        if self.conn is None:
            return
        now = self.clock()
        try:
            self.sessions = read_sessions(self.conn, include_hidden=True, now=now, memo=self._memo)
        except sqlite3.Error as exc:
            self.show_message(f"The store cannot be read: {exc}")
            return
        self._last_reload = now
        self._clock_matters = self._clock_changes_the_list()
        if self._clock_matters:
            self._wake_ticker()
        self._redraw()

    def _clock_changes_the_list(self) -> bool:
        """Whether time alone can change the list, so that it must be read again on the clock: automatic hiding
        is on, a row is hidden (it leaves the hidden list in time), or another host's row is shown (its host
        falls silent). Otherwise an idle panel reads nothing until the collector announces a change."""
        if self.conn is not None and auto_hide_after(self.conn) is not None:
            return True
        return any(s.hidden or s.heard is not None for s in self.sessions)

    def _split(self) -> tuple[list[Session], list[Session]]:
        """The list's current and hidden sessions, split once per read (each change redraws from them)."""
        if self._split_of is not self.sessions:
            current: list[Session] = []
            hidden: list[Session] = []
            for session in self.sessions:
                (hidden if session.hidden else current).append(session)
            self._split_lists, self._split_of = (current, hidden), self.sessions
        return self._split_lists

    @property
    def current(self) -> list[Session]:
        return self._split()[0]

    @property
    def hidden(self) -> list[Session]:
        return self._split()[1]

    @property
    def visible_sessions(self) -> list[Session]:
        return self.filter.apply(self.current, self._search_keys)

    def _redraw(self) -> None:
        try:
            self._redraw_widgets()
        except (NoMatches, IndexError):
            pass  # the panel is closing: its screens and widgets are already gone

    def _redraw_widgets(self) -> None:
        main = self.screen_stack[0]
        totals = count_sessions(self.sessions)
        hidden_screens = [screen for screen in self.screen_stack if isinstance(screen, HiddenScreen)]
        # With sync on and its server unreachable: since when the other machines' rows are not current.
        note = not_current_note(self.conn) if self.conn is not None else None
        for screen in (main, *hidden_screens):
            self._prepare_lists(screen)
            view = "Hidden sessions" if isinstance(screen, HiddenScreen) else ""
            view = " · ".join(part for part in (view, note) if part)
            screen.query_one(PanelHeader).show(totals["working"], totals["awaiting_input"], self.filter.awaiting, view)
        session_list = main.query_one("#sessions", SessionList)
        visible = self.visible_sessions
        session_list.set_sessions(visible)
        hidden = self.hidden
        main.query_one("#hidden", Button).label = f"Hidden {len(hidden)}" if hidden else "Hidden"
        self._show_filter()
        empty = main.query_one("#empty", Static)
        text = self._empty_text(visible)
        empty.update(text)
        empty.set_class(bool(text), "-shown")
        session_list.display = bool(visible)
        for screen in hidden_screens:
            self._fill_hidden(screen)

    def _empty_text(self, visible: list[Session]) -> str:
        if visible:
            return ""
        if not self.sessions:
            return "\n".join(setup_report.explain(self.setup()))
        current = self.current
        if current and self.filter.narrows:
            what = []
            if self.filter.awaiting:
                what.append("awaiting input")
            if self.filter.active:
                what.append("active")
            if self.filter.provider != "all":
                what.append(filters.provider_label(self.filter.provider))
            if self.filter.search.strip():
                what.append(f"matching “{self.filter.search.strip()}”")
            return f"No session is {', '.join(what)}. {len(current)} in the list without this filter."
        hidden = len(self.hidden)
        return f"No sessions in the list. {hidden} hidden: press h to review them."

    @property
    def main_list(self) -> SessionList:
        return self.screen_stack[0].query_one("#sessions", SessionList)

    def _fill_hidden(self, screen: HiddenScreen) -> None:
        hidden = self.hidden
        session_list = screen.query_one(SessionList)
        session_list.set_sessions(hidden)
        session_list.display = bool(hidden)
        screen.query_one("#empty", Static).set_class(not hidden, "-shown")

    def _show_filter(self) -> None:
        main = self.screen_stack[0]
        for provider in filters.providers():
            main.query_one(f"#provider-{provider}", Button).set_class(self.filter.provider == provider, "-selected")
        main.query_one("#active", Button).set_class(self.filter.active, "-selected")

    def set_filter(self, value: Filter) -> None:
        """Show the list through `value` and keep it for the next time the panel opens."""
        if value == self.filter:
            return
        self.filter = value
        if self.conn is not None:
            try:
                store.set_setting(self.conn, FILTER_SETTING, filters.dumps(value))
            except sqlite3.Error as exc:
                self.show_message(f"The filter could not be saved: {exc}")
        self._redraw()

    def _wake_ticker(self) -> None:
        raise NotImplementedError

    def _prepare_lists(self, screen: Screen[object]) -> None:
        """Show or leave out the usage column on a screen's list and its header (one setting for both); a list
        that draws a running timer wakes the panel's one-second tick. Done once per screen and setting: walking
        the screen's widgets at every change cost more than the change."""
        if self._prepared.get(screen) == self.usage_column:
            return
        self._prepared[screen] = self.usage_column
        for session_list in screen.query(SessionList):
            session_list.timer_shown = self._wake_ticker
        for widget in (*screen.query(SessionList), *screen.query(ColumnHeader)):
            if widget.usage_column != self.usage_column:
                widget.usage_column = self.usage_column
                widget.refresh()

    def action_toggle_usage(self) -> None:
        """`t`: the usage column on or off, kept for the next time the panel opens."""
        self.usage_column = not self.usage_column
        if self.conn is not None:
            try:
                store.set_setting(self.conn, USAGE_COLUMN_SETTING, "1" if self.usage_column else None)
            except sqlite3.Error as exc:
                self.show_message(f"The setting could not be saved: {exc}")
        self._redraw()
