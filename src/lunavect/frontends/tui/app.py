"""The panel: every session in one live list, arranged by its person (the guide's "Sessions" to "Return to a
task").

It reads the store that the collector writes, through `lunavect.listing.sessions` like every other front end, and
redraws as soon as the store commits a change it shows (`lunavect.listing.changes`: the collector's notification, or
`PRAGMA data_version` polled four times a second when no collector runs). Everything the person arranges is written through `lunavect.listing.arrangement`, so
`lunavect list` and scripts see the same list. The clock and the store are parameters: tests run the panel
on data and a time of their choosing.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
import weakref
from collections.abc import Callable
from importlib import resources

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Button, Footer, Input, Static

from lunavect import store
from lunavect.collector import setup_report
from lunavect.core import clients
from lunavect.core.terminal_text import clean_lines
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.filters import Filter, SearchKeys
from lunavect.frontends.tui.list_view import FILTER_SETTING, USAGE_COLUMN_SETTING, ListView
from lunavect.frontends.tui.peek import PeekPane
from lunavect.frontends.tui.screens import HiddenScreen, SettingsScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.frontends.tui.widgets import Counter, PanelHeader, StaleNote
from lunavect.listing import arrangement, changes
from lunavect.listing.sessions import RowMemo, auto_hide_after

POLL_INTERVAL_S = 0.25
TICK_INTERVAL_S = 1.0
# How often the panel asks whether its data is current (the collector's heartbeat): cheap, and seconds matter
# little against the heartbeat's own limit.
STALE_CHECK_S = 5.0
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


class PanelApp(ListView):
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
        staleness: Callable[[sqlite3.Connection], str | None] | None = None,
        stale_check_interval: float = STALE_CHECK_S,
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
        # How stale the list may be: judged by the one owner of that fact when the panel runs with a collector
        # (tests without one give their own, or none).
        if staleness is None and start_collector:
            from lunavect.collector import process as collector_process

            staleness = collector_process.staleness
        self.staleness = staleness
        self.stale_check_interval = stale_check_interval
        self.conn: sqlite3.Connection | None = None
        self.filter = Filter()
        self.usage_column = False
        self.history = arrangement.HideHistory()
        self.sessions = []
        self.message = ""
        self._feed: changes.Feed | None = None
        self._last_reload = 0.0
        self._clock_matters = True
        self._ticker: Timer | None = None
        # Rows decoded by the last reload: a change decodes only the rows that moved.
        self._memo = RowMemo()
        self._search_keys = SearchKeys()
        self._prepared = weakref.WeakKeyDictionary()

    # -- layout -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield PanelHeader(id="header", limits=lambda: self.conn, clock=self.clock)
        yield StaleNote("", id="stale", markup=False)
        yield Static("", id="message", markup=False)
        with Horizontal(id="toolbar"):
            yield SearchInput(placeholder="Search title or project (Ctrl+F)", id="search", compact=True)
            yield Button("All", id="provider-all", compact=True)
            for client in clients.every():
                yield Button(client.label, id=f"provider-{client.id}", compact=True)
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
        self.filter = filters.loads(store.get_setting(self.conn, FILTER_SETTING))
        self.usage_column = store.get_setting(self.conn, USAGE_COLUMN_SETTING) == "1"
        self.query_one(SearchInput).value = self.filter.search
        self._feed = changes.Feed(version=self._data_version, fallback_s=self.poll_interval)
        self.reload()
        self.query_one("#sessions", SessionList).focus()
        self.run_worker(self._follow_changes(), group="changes")
        self._ticker = self.set_interval(self.tick_interval, self._tick)
        if self.staleness is not None:
            self.set_interval(self.stale_check_interval, self._judge_freshness)
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
        from lunavect.collector import process as collector

        try:
            if collector.ensure_running():
                conn = self._connect()
                try:
                    collector.wait_caught_up(conn)
                finally:
                    conn.close()
        except Exception as exc:  # noqa: BLE001 - shown to the person, the panel goes on with what is stored
            self.call_from_thread(self.show_message, f"The collector could not start: {exc}")
        with contextlib.suppress(RuntimeError):  # the panel closed meanwhile
            self.call_from_thread(self._judge_freshness)

    def _judge_freshness(self) -> None:
        """Say whether what the panel shows may be out of date, as `collector_process.staleness` judges it."""
        if self.staleness is None or self.conn is None:
            return
        try:
            reason = self.staleness(self.conn)
        except sqlite3.Error as exc:
            reason = f"the store cannot be read ({exc})"
        try:
            self.screen_stack[0].query_one(StaleNote).show(reason)
        except (NoMatches, IndexError):
            pass  # the panel is closing

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
        """Each second: the timers on screen, and the list read again when time alone can change it. With
        neither, the timer pauses until a timer row is drawn or a reload finds the clock matters again: an idle
        panel does nothing at all between changes."""
        if self._clock_matters and self.clock() - self._last_reload >= CLOCK_RELOAD_S:
            self.reload()
        ticking = False
        for session_list in self.screen.query(SessionList):
            ticking = session_list.tick() or ticking
        if not ticking and not self._clock_matters and self._ticker is not None:
            self._ticker.pause()

    def _wake_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.resume()

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
        order = filters.providers()
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
        from lunavect.frontends.tui.editor_settings import EditorSettings
        from lunavect.frontends.tui.notify_settings import NotificationSettings

        notifications = NotificationSettings.from_store(self.conn, self.show_message)
        self.push_screen(
            SettingsScreen(auto_hide_after(self.conn), self._set_auto_hide, notifications, EditorSettings())
        )

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
