"""The panel: every session in one live list, arranged by its person (the guide's "Sessions" to "Return to a
task").

It reads the store that the collector writes, through `lunavect.sessions` like every other front end, and
redraws as soon as the store commits a change it shows (`lunavect.changes`: the collector's notification, or
`PRAGMA data_version` polled four times a second when no collector runs). Everything the person arranges is written through `lunavect.arrangement`, so
`lunavect list` and scripts see the same list. The clock and the store are parameters: tests run the panel
on data and a time of their choosing.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from importlib import resources

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from lunavect import arrangement, changes, setup_report
from lunavect.core.model import Session
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.filters import Filter
from lunavect.frontends.tui.peek import PeekPane
from lunavect.frontends.tui.row_actions import RowActions
from lunavect.frontends.tui.screens import HiddenScreen, SettingsScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.frontends.tui.widgets import Counter, PanelHeader
from lunavect.sessions import RowMemo, auto_hide_after, count_sessions, read_sessions
from lunavect.sync.remote import not_current_note
from lunavect.terminal_text import clean_lines

# Where the search and filters are kept between openings of the panel.
FILTER_SETTING = "panel.filter"
# "1" while the person wants the usage column (tokens and context fill), kept beside the filters.
USAGE_COLUMN_SETTING = "panel.usage_column"
POLL_INTERVAL_S = 0.25
TICK_INTERVAL_S = 1.0
# Automatic hiding depends on the clock, not only on the store: read the list again this often.
CLOCK_RELOAD_S = 15.0


class SearchInput(Input):
    """The search field; Down goes to the first row (the guide's keyboard)."""

    BINDINGS = [
        Binding("down", "leave_down", "First row", show=False),
        Binding("escape", "leave", "Leave search", show=False),
    ]

    def action_leave_down(self) -> None:
        sessions = self.app.query_one("#sessions", SessionList)
        if sessions.sessions:
            sessions.focus()
            sessions.cursor = 0

    def action_leave(self) -> None:
        self.screen.set_focus(None)


class PanelApp(RowActions):
    """The session panel."""

    # Read from the installed package (a wheel, a zip), never from a path beside the source file.
    CSS = resources.files("lunavect.frontends.tui").joinpath("panel.tcss").read_text(encoding="utf-8")
    TITLE = "lunavect"
    ENABLE_COMMAND_PALETTE = False

    BINDINGS = [
        Binding("ctrl+f,slash", "focus_search", "Search"),
        Binding("a", "toggle_awaiting", "Awaiting input"),
        Binding("v", "toggle_active", "Active", show=False),
        Binding("c", "cycle_provider", "Client", show=False),
        Binding("h", "hidden", "Hidden"),
        Binding("s", "settings", "Settings"),
        Binding("t", "toggle_usage", "Usage column", show=False),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("down", "first_row", "First row", show=False),
        Binding("space", "peek", "Peek"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False),
    ]

    def __init__(
        self,
        *,
        connect: Callable[[], sqlite3.Connection] | None = None,
        clock: Callable[[], float] = time.time,
        start_collector: bool = True,
        setup: Callable[[], setup_report.SetupReport | None] | None = None,
        poll_interval: float = POLL_INTERVAL_S,
        tick_interval: float = TICK_INTERVAL_S,
    ) -> None:
        super().__init__()
        if connect is None:
            from lunavect import store

            connect = store.connect
        self._connect = connect
        self.clock = clock
        self.start_collector = start_collector
        # The setup report, as the collector recorded it (tests give their own).
        self.setup = setup or self._stored_setup
        self.poll_interval = poll_interval
        self.tick_interval = tick_interval
        self.conn: sqlite3.Connection | None = None
        self.filter = Filter()
        self.usage_column = False
        self.history = arrangement.HideHistory()
        self.sessions = []
        self.message = ""
        self._feed: changes.Feed | None = None
        self._last_reload = 0.0
        self._clock_matters = True
        # Rows decoded by the last reload: a change decodes only the rows that moved.
        self._memo = RowMemo()

    # -- layout -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield PanelHeader(id="header", limits=lambda: self.conn, clock=self.clock)
        yield Static("", id="message", markup=False)
        with Horizontal(id="toolbar"):
            yield SearchInput(placeholder="Search title or project (Ctrl+F)", id="search", compact=True)
            yield Button("All", id="provider-all", compact=True)
            yield Button("Claude", id="provider-claude", compact=True)
            yield Button("Codex", id="provider-codex", compact=True)
            yield Button("Active", id="active", compact=True)
            yield Button("Hidden", id="hidden", compact=True)
            yield Button("Settings", id="settings", compact=True)
        yield ColumnHeader(id="columns")
        yield SessionList(clock=self.clock, id="sessions")
        yield Static("", id="empty")
        yield PeekPane(
            focused=lambda: self.main_list.current,
            everyone=lambda: self.sessions,
            connect=lambda: self.conn,
            report=self.show_message,
            id="peek",
        )
        yield Footer()

    def on_mount(self) -> None:
        self.conn = self._connect()
        self.filter = filters.loads(arrangement.get_setting(self.conn, FILTER_SETTING))
        self.usage_column = arrangement.get_setting(self.conn, USAGE_COLUMN_SETTING) == "1"
        self.query_one(SearchInput).value = self.filter.search
        self._feed = changes.Feed(version=self._data_version, fallback_s=self.poll_interval)
        self.reload()
        self.query_one("#sessions", SessionList).focus()
        self.run_worker(self._follow_changes(), group="changes")
        self.set_interval(self.tick_interval, self._tick)
        if self.start_collector:
            self.run_worker(self._start_collector, thread=True, exclusive=True, group="collector")

    def on_unmount(self) -> None:
        if self._feed is not None:
            self._feed.stop.set()
            self._feed.close()
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    # -- the store ----------------------------------------------------------------------------------------

    def _start_collector(self) -> None:
        from lunavect import collector_process as collector

        try:
            if collector.ensure_running():
                conn = self._connect()
                try:
                    collector.wait_caught_up(conn)
                finally:
                    conn.close()
        except Exception as exc:  # noqa: BLE001 - shown to the person, the panel goes on with what is stored
            self.call_from_thread(self.show_message, f"The collector could not start: {exc}")

    def _data_version(self) -> int:
        if self.conn is None:
            raise sqlite3.ProgrammingError("the panel is closed")
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    async def _follow_changes(self) -> None:
        """Reload on each change of the store (the feed never blocks the event loop)."""
        assert self._feed is not None
        async for _change in self._feed.changes():
            self.reload()

    def _stored_setup(self) -> setup_report.SetupReport | None:
        if self.conn is None:
            return None
        try:
            return setup_report.stored(self.conn)
        except sqlite3.Error:
            return None

    def _tick(self) -> None:
        if self._clock_matters and self.clock() - self._last_reload >= CLOCK_RELOAD_S:
            self.reload()
        for session_list in self.screen.query(SessionList):
            session_list.tick()

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
        self._redraw()

    def _clock_changes_the_list(self) -> bool:
        """Whether time alone can change the list, so that it must be read again on the clock: automatic hiding
        is on, a row is hidden (it leaves the hidden list in time), or another host's row is shown (its host
        falls silent). Otherwise an idle panel reads nothing until the collector announces a change."""
        if self.conn is not None and auto_hide_after(self.conn) is not None:
            return True
        return any(s.hidden or s.heard is not None for s in self.sessions)

    @property
    def current(self) -> list[Session]:
        return [s for s in self.sessions if not s.hidden]

    @property
    def hidden(self) -> list[Session]:
        return [s for s in self.sessions if s.hidden]

    @property
    def visible_sessions(self) -> list[Session]:
        return self.filter.apply(self.current)

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
            self._set_usage_column(screen)
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
                what.append(self.filter.provider.capitalize())
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
        for provider in filters.PROVIDERS:
            main.query_one(f"#provider-{provider}", Button).set_class(self.filter.provider == provider, "-selected")
        main.query_one("#active", Button).set_class(self.filter.active, "-selected")

    def set_filter(self, value: Filter) -> None:
        """Show the list through `value` and keep it for the next time the panel opens."""
        if value == self.filter:
            return
        self.filter = value
        if self.conn is not None:
            try:
                arrangement.set_setting(self.conn, FILTER_SETTING, filters.dumps(value))
            except sqlite3.Error as exc:
                self.show_message(f"The filter could not be saved: {exc}")
        self._redraw()

    def _set_usage_column(self, screen: Screen[object]) -> None:
        """Show or leave out the usage column on a screen's list and its header (one setting for both)."""
        for widget in (*screen.query(SessionList), *screen.query(ColumnHeader)):
            if widget.usage_column != self.usage_column:
                widget.usage_column = self.usage_column
                widget.refresh()

    def action_toggle_usage(self) -> None:
        """`t`: the usage column on or off, kept for the next time the panel opens."""
        self.usage_column = not self.usage_column
        if self.conn is not None:
            try:
                arrangement.set_setting(self.conn, USAGE_COLUMN_SETTING, "1" if self.usage_column else None)
            except sqlite3.Error as exc:
                self.show_message(f"The setting could not be saved: {exc}")
        self._redraw()

    def action_peek(self) -> None:
        """Open the peek on the focused row, or close it."""
        pane = self.query_one(PeekPane)
        if pane.display:
            pane.close()
        elif self.main_list.current is not None:
            pane.open()

    # -- messages -----------------------------------------------------------------------------------------

    def show_message(self, text: str) -> None:
        """A line at the top of the panel; it lasts until replaced or the panel closes."""
        text = clean_lines(text, 500)  # it interpolates titles, folders and ids: shown, never obeyed
        self.message = text
        for screen in self.screen_stack:
            for widget in screen.query("#message"):
                assert isinstance(widget, Static)
                widget.update(text)
                widget.set_class(bool(text), "-shown")

    # -- app actions --------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return bool(len(self.history))
        if action in ("focus_search", "toggle_active", "cycle_provider") and isinstance(self.screen, HiddenScreen):
            return False
        if action == "peek":  # the peek belongs to the main list
            return self.screen is self.screen_stack[0]
        return True

    def action_undo(self) -> None:
        """Ctrl+Z: restore the last hidden row while the panel is open."""
        if self.conn is None:
            return
        try:
            key = self.history.undo(self.conn, self.clock())
        except sqlite3.Error as exc:
            self.show_message(f"The store could not be changed: {exc}")
            return
        if key is not None:
            restored = next((s for s in self.sessions if s.id == key), None)
            title = restored.title if restored and restored.title else key
            self.show_message(f"Restored “{title}”.")
            self.reload()
            if not isinstance(self.screen, HiddenScreen):
                self.main_list.select_id(key)
        self.refresh_bindings()

    def action_focus_search(self) -> None:
        if isinstance(self.screen, HiddenScreen):
            return
        self.query_one(SearchInput).focus()

    def action_first_row(self) -> None:
        session_list = self.screen.query(SessionList).first() if self.screen.query(SessionList) else None
        if session_list is not None and session_list.sessions:
            session_list.focus()
            if session_list.cursor is None:
                session_list.cursor = 0

    def action_toggle_awaiting(self) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, awaiting=not self.filter.awaiting))

    def action_toggle_active(self) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, active=not self.filter.active))

    def action_cycle_provider(self) -> None:
        order = filters.PROVIDERS
        following = order[(order.index(self.filter.provider) + 1) % len(order)]
        self.set_filter(msgspec.structs.replace(self.filter, provider=following))

    def action_hidden(self) -> None:
        if isinstance(self.screen, HiddenScreen):
            self.pop_screen()
            return
        screen = HiddenScreen(self.clock)
        self.push_screen(screen)
        self.call_after_refresh(self._redraw)

    def action_settings(self) -> None:
        if self.conn is None:
            return
        from lunavect.frontends.tui.notify_settings import NotificationSettings

        notifications = NotificationSettings.from_store(self.conn, self.show_message)
        self.push_screen(SettingsScreen(auto_hide_after(self.conn), self._set_auto_hide, notifications))

    def _set_auto_hide(self, seconds: float | None) -> None:
        if self.conn is None:
            return
        try:
            arrangement.set_auto_hide_after(self.conn, seconds)
        except sqlite3.Error as exc:
            self.show_message(f"The setting could not be saved: {exc}")
            return
        self.reload()

    # -- widgets' events ----------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def search_changed(self, event: Input.Changed) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, search=event.value))

    @on(Input.Submitted, "#search")
    def search_submitted(self) -> None:
        self.query_one(SearchInput).action_leave_down()

    @on(Counter.Selected)
    def counter_selected(self, event: Counter.Selected) -> None:
        if event.counter.id == "awaiting":
            if isinstance(self.screen, HiddenScreen):
                self.pop_screen()
            self.action_toggle_awaiting()

    @on(Button.Pressed)
    def button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button.startswith("provider-"):
            self.set_filter(msgspec.structs.replace(self.filter, provider=button.removeprefix("provider-")))
        elif button == "active":
            self.action_toggle_active()
        elif button == "hidden":
            self.action_hidden()
        elif button == "settings":
            self.action_settings()

    @on(SessionList.LeftTop)
    def left_top(self) -> None:
        if not isinstance(self.screen, HiddenScreen):
            self.query_one(SearchInput).focus()


def run_panel(**options: object) -> None:
    PanelApp(**options).run()  # type: ignore[arg-type]
