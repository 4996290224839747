"""The panel's app: the store, the change feed, the clock and the screens; the panel itself is its screen
(`panel_screen.PanelScreen`), which owns the list and everything the person does there.

It opens the store that the collector writes (starting the collector when none runs) and tells the panel's
screen to read the list again as soon as the store commits a change it shows (`lunavect.listing.changes`: the
collector's notification, or `PRAGMA data_version` polled four times a second when no collector runs), or
when time alone can change it. The clock and the store are parameters: tests run the panel on data and a time
of their choosing.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from importlib import resources

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer

from lunavect.collector import setup_report
from lunavect.frontends.tui.messages import RowRequest
from lunavect.frontends.tui.panel_screen import PanelScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.frontends.tui.widgets import Counter
from lunavect.listing import changes

POLL_INTERVAL_S = 0.25
TICK_INTERVAL_S = 1.0
# How often the panel asks whether its data is current (the collector's heartbeat): cheap, and seconds matter
# little against the heartbeat's own limit.
STALE_CHECK_S = 5.0
# Automatic hiding depends on the clock, not only on the store: read the list again this often.
CLOCK_RELOAD_S = 15.0


class PanelApp(App[None]):
    """The session panel."""

    # Read from the installed package (a wheel, a zip), never from a path beside the source file.
    CSS = resources.files("lunavect.frontends.tui").joinpath("panel.tcss").read_text(encoding="utf-8")
    TITLE = "lunavect"
    # Ctrl+P: Textual's command palette, its themes among its commands (the one chosen is kept in the store).
    ENABLE_COMMAND_PALETTE = True

    # The panel's keys that work on its hidden view too. That view is a screen of its own, so there they reach
    # the app, which passes them to the panel's screen; on the panel's screen, its own bindings of these keys
    # come first (and keep their place in the footer).
    BINDINGS = [
        Binding("a", "toggle_awaiting", "Awaiting input"),
        Binding("s", "settings", "Settings"),
        Binding("t", "toggle_usage", "Usage column", show=False),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False),
        Binding("question_mark", "keys", "Keys", key_display="?"),
        Binding("u", "usage_chart", "Usage", show=False),
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
        self._feed: changes.Feed | None = None
        self._ticker: Timer | None = None
        self.panel = PanelScreen(
            connection=lambda: self.conn, clock=self.clock, setup=self.setup, wake_clock=self._wake_ticker
        )

    def get_default_screen(self) -> Screen[None]:
        """The panel's screen is the first on the stack: the others (hidden sessions, settings, the row menu)
        open over it and close back to it."""
        return self.panel

    def on_load(self) -> None:
        """Open the store before any screen is composed: the panel's screen reads it as soon as it is mounted."""
        self.conn = self._connect()
        self._feed = changes.Feed(version=self._data_version, fallback_s=self.poll_interval)

    def on_mount(self) -> None:
        self._restore_theme()
        self.run_worker(self._follow_changes(), group="changes")
        self._ticker = self.set_interval(self.tick_interval, self._tick)
        if self.staleness is not None:
            self.set_interval(self.stale_check_interval, self._judge_freshness)
        if self.start_collector:
            self.run_worker(self._start_collector, thread=True, exclusive=True, group="collector")

    def _restore_theme(self) -> None:
        """The theme the person chose last time (if this Textual still has it); each new choice is kept."""
        from lunavect.frontends.tui import preferences

        if self.conn is not None:
            chosen = preferences.stored_theme(self.conn)
            if chosen is not None and chosen in self.available_themes:
                self.theme = chosen
        self.theme_changed_signal.subscribe(self, self._keep_theme)

    def _keep_theme(self, theme: Theme) -> None:
        from lunavect.frontends.tui import preferences

        if self.conn is not None:
            preferences.keep_theme(self.conn, theme.name)

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
            self.call_from_thread(self.panel.show_message, f"The collector could not start: {exc}")
        with contextlib.suppress(RuntimeError):  # the panel closed meanwhile
            self.call_from_thread(self._judge_freshness)

    def _judge_freshness(self) -> None:
        """Say whether what the panel shows may be out of date, as `collector.process.staleness` judges it."""
        if self.staleness is None or self.conn is None or not self.screen_stack:
            return  # nothing to judge, or the app is closing (its screens go before its timers)
        try:
            reason = self.staleness(self.conn)
        except sqlite3.Error as exc:
            reason = f"the store cannot be read ({exc})"
        self.panel.show_staleness(reason)

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

    def reload(self) -> None:
        """The store changed, or time did: the panel reads its list again."""
        self.panel.reload()

    # -- the clock ----------------------------------------------------------------------------------------

    def _tick(self) -> None:
        """Each second: the timers on screen, and the list read again when time alone can change it. With
        neither, the timer pauses until a timer row is drawn or a reload finds the clock matters again: an idle
        panel does nothing at all between changes."""
        if not self.screen_stack:
            return  # the app is closing: its screens go before its timers (a tick then ended it with a traceback)
        screen = self.screen
        panel = self.panel
        if panel.clock_matters and self.clock() - panel.rows.at >= CLOCK_RELOAD_S:
            self.reload()
        ticking = False
        for session_list in screen.query(SessionList):
            ticking = session_list.tick() or ticking
        if not ticking and not panel.clock_matters and self._ticker is not None:
            self._ticker.pause()

    def _wake_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.resume()

    # -- the hidden view, a screen beside the panel's: what it asks, the panel answers --------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return self.panel.check_action(action, parameters)
        return True

    def action_toggle_awaiting(self) -> None:
        self.panel.action_toggle_awaiting()

    def action_settings(self) -> None:
        self.panel.action_settings()

    def action_keys(self) -> None:
        """The `?` screen, from the bindings of the panel's screen, its list and the app."""
        from lunavect.frontends.tui.keys_screen import KeysScreen, rows
        from lunavect.frontends.tui.session_list import SessionList

        palette = [Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Commands and themes")]
        self.push_screen(KeysScreen(rows(PanelScreen.BINDINGS, SessionList.BINDINGS, self.BINDINGS, palette)))

    def action_usage_chart(self) -> None:
        """The `u` screen: tokens per day by client and the rate-limit windows, as bars."""
        from lunavect.frontends.tui.usage_screen import UsageScreen

        if self.conn is not None:
            self.push_screen(UsageScreen(self.conn, self.clock()))

    def action_toggle_usage(self) -> None:
        self.panel.action_toggle_usage()

    def action_undo(self) -> None:
        self.panel.action_undo()

    @on(RowRequest)
    def hidden_row_requested(self, request: RowRequest) -> None:
        self.panel.row_requested(request)

    @on(Counter.Selected)
    def hidden_counter_selected(self, event: Counter.Selected) -> None:
        self.panel.counter_selected(event)


def run_panel(**options: object) -> None:
    PanelApp(**options).run()  # type: ignore[arg-type]
