"""The panel's screen: every session in one live list, arranged by its person (the guide's "Sessions" to
"Return to a task"), with its header, toolbar, peek and footer.

It owns its page, as a screen does in Textual: it reads the list through `lunavect.listing.sessions` like every
other front end (`LastRead`) whenever the app says the store changed or time passed, and again after each
change the person makes; it shows the list through the person's filter and preferences, kept in the store
(`preferences`); and it answers what its widgets ask (`messages`: a row's request, the search field left, the
peek closed, a line to show). Every change of the arrangement goes through `lunavect.listing.arrangement`
(`row_actions`), so `lunavect list` and scripts see the same list. The hidden view it pushes is filled from
here too. The app gives it the store's connection, the clock, the setup report and the clock's wake-up.
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Callable
from functools import partial

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from lunavect.collector import setup_report
from lunavect.core.model import Session
from lunavect.core.state_words import LEGEND
from lunavect.core.terminal_text import clean_lines
from lunavect.frontends.tui import filters, footer, preferences, row_actions
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.filters import Filter
from lunavect.frontends.tui.last_read import LastRead
from lunavect.frontends.tui.messages import LeftSearch, LeftTop, MenuChoice, PeekClosed, Report, RowAction, RowRequest
from lunavect.frontends.tui.peek import PeekPane
from lunavect.frontends.tui.resume_screen import ask_to_resume
from lunavect.frontends.tui.screens import HiddenScreen, RowMenu, SettingsScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.frontends.tui.toolbar import SearchInput, Toolbar
from lunavect.frontends.tui.widgets import Counter, MessageLine, PanelHeader, StaleNote, show_text
from lunavect.listing import arrangement
from lunavect.listing.attention import NOTHING_WAITS, needs_person, summarize_sessions
from lunavect.listing.hosts import not_current_note
from lunavect.listing.sessions import auto_hide_after


class PanelScreen(Screen[None]):
    # Quit is the app's (`PanelApp.BINDINGS`), and so last in the footer, as in the guide.
    BINDINGS = [
        Binding("ctrl+f,slash", "focus_search", "Search"),
        Binding("a", "toggle_awaiting", "Awaiting", tooltip="Only the sessions awaiting input, or all again"),
        Binding("n", "next", "Next"),
        Binding("v", "toggle_active", "Active", show=False),
        Binding("c", "cycle_provider", "Client", show=False),
        Binding("h", "hidden", "Hidden"),
        Binding("s", "settings", "Settings"),
        Binding("t", "toggle_usage", "Usage column", show=False),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("down,j", "first_row", "First row", show=False),
        Binding("space", "peek", "Peek"),
    ]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The keys the footer names: fewer on a narrow terminal (`footer.named`)."""
        return footer.named(super().active_bindings, self.size.width)

    def on_resize(self) -> None:
        self.refresh_bindings()  # the footer names its keys again for the new width

    def __init__(
        self,
        *,
        connection: Callable[[], sqlite3.Connection | None],
        clock: Callable[[], float],
        setup: Callable[[], setup_report.SetupReport | None],
        wake_clock: Callable[[], None],
    ) -> None:
        """`connection`: the app's connection to the store (None before it opens and once it closed);
        `wake_clock`: resumes the app's one-second tick, paused while nothing on screen depends on time."""
        super().__init__()
        self._connection = connection
        self._clock = clock
        self._setup = setup
        self._wake_clock = wake_clock
        self.rows = LastRead()
        self.filter = Filter()
        self.usage_column = False
        self.history = arrangement.HideHistory()
        self.message = ""
        # Whether time alone can change the list (the app's tick then reads it again now and then).
        self.clock_matters = True
        # The screens whose lists are set up, with the usage column setting they have.
        self._prepared: weakref.WeakKeyDictionary[Screen[None], bool] = weakref.WeakKeyDictionary()

    def compose(self) -> ComposeResult:
        yield PanelHeader(id="header", limits=self._connection, clock=self._clock)
        yield StaleNote("", id="stale", markup=False)
        yield MessageLine("", id="message", markup=False)
        yield Toolbar(id="toolbar")
        yield ColumnHeader(id="columns")
        yield SessionList(clock=self._clock, id="sessions")
        yield Static("", id="empty")
        # What the list's marks mean, as the web page says them in words (`core.state_words.LEGEND`).
        yield Static(LEGEND, id="legend", markup=False)
        yield PeekPane(
            focused=lambda: self.session_list.current,
            everyone=lambda: self.rows.sessions,
            connect=self._connection,
            id="peek",
        )
        # An 80-column terminal still shows s, Space and q; the palette's Ctrl+P is on the `?` screen.
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """The person's choices as kept, the list as stored, the focus on it (the app opened the store when it
        loaded, before any screen)."""
        conn = self._connection()
        if conn is not None:
            self.filter = preferences.stored_filter(conn)
            self.usage_column = preferences.stored_usage_column(conn)
        self.query_one(SearchInput).value = self.filter.search
        self.reload()
        self.session_list.focus()

    @property
    def session_list(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    @property
    def sessions(self) -> list[Session]:
        return self.rows.sessions

    # -- reading and drawing ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the list again and redraw what changed."""
        conn = self._connection()
        if conn is None:
            return
        try:
            self.rows.read(conn, self._clock())
        except sqlite3.Error as exc:
            self.show_message(f"The store cannot be read: {exc}")
            return
        self.clock_matters = self.rows.changes_with_time(conn)
        if self.clock_matters:
            self._wake_clock()
        self._redraw()

    def _redraw(self) -> None:
        try:
            self._redraw_widgets()
        except (NoMatches, IndexError):
            pass  # the panel is closing: its screens and widgets are already gone

    def _redraw_widgets(self) -> None:
        counts = summarize_sessions(self.rows.sessions)
        conn = self._connection()
        # With sync on and its server unreachable: since when the other machines' rows are not current.
        note = not_current_note(conn) if conn is not None else None
        self._prepare_lists(self)
        self.query_one(PanelHeader).show(counts, self.filter.awaiting, note or "")
        session_list = self.session_list
        visible = self.rows.visible(self.filter)
        session_list.set_sessions(visible)
        self.query_one(Toolbar).show(self.filter, self.rows.provider_choices(self.filter), len(self.rows.hidden))
        empty = self.query_one("#empty", Static)
        text = "" if visible else self.rows.why_empty(self.filter, self._setup)
        show_text(empty, text)
        empty.set_class(bool(text), "-shown")
        session_list.display = bool(visible)
        self.query_one("#legend", Static).display = bool(visible)
        for view in self._hidden_views():
            self._prepare_lists(view)
            view.show(self.rows.hidden, counts, self.filter.awaiting, note)

    def _hidden_views(self) -> list[HiddenScreen]:
        return [screen for screen in self.app.screen_stack if isinstance(screen, HiddenScreen)]

    def _prepare_lists(self, screen: Screen[None]) -> None:
        """Show or leave out the usage column on a screen's list and its header (one setting for both); a list
        that draws a running timer wakes the app's one-second tick. Done once per screen and setting: walking
        the screen's widgets at every change cost more than the change."""
        if self._prepared.get(screen) == self.usage_column:
            return
        self._prepared[screen] = self.usage_column
        for session_list in screen.query(SessionList):
            session_list.timer_shown = self._wake_clock
        for widget in (*screen.query(SessionList), *screen.query(ColumnHeader)):
            if widget.usage_column != self.usage_column:
                widget.usage_column = self.usage_column
                widget.refresh()

    def set_filter(self, value: Filter) -> None:
        """Show the list through `value` and keep it for the next time the panel opens."""
        if value == self.filter:
            return
        self.filter = value
        conn = self._connection()
        if conn is not None:
            try:
                preferences.keep_filter(conn, value)
            except sqlite3.Error as exc:
                self.show_message(f"The filter could not be saved: {exc}")
        self._redraw()

    def show_message(self, text: str) -> None:
        """A line at the top of the panel and of its hidden view; it lasts until replaced or the panel closes."""
        text = clean_lines(text, 500)  # it interpolates titles, folders and ids: shown, never obeyed
        self.message = text
        for line in self.query(MessageLine):
            line.say(text)
        for view in self._hidden_views():
            view.show_message(text)

    def show_staleness(self, reason: str | None) -> None:
        """Say whether what the panel shows may be out of date (`reason`), or that it is current (None)."""
        for note in self.query(StaleNote):
            note.show(reason)

    # -- keys -----------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return bool(len(self.history))
        return True

    def action_undo(self) -> None:
        """Ctrl+Z: restore the last hidden row while the panel is open (on the hidden view too)."""
        conn = self._connection()
        if conn is None:
            return
        try:
            key = self.history.undo(conn, self._clock())
        except sqlite3.Error as exc:
            self.show_message(f"The store could not be changed: {exc}")
            return
        if key is not None:
            restored = next((s for s in self.rows.sessions if s.id == key), None)
            title = restored.title if restored and restored.title else key
            self.show_message(f"Restored “{title}”.")
            self.reload()
            if not isinstance(self.app.screen, HiddenScreen):
                self.session_list.select_id(key)
        self.app.refresh_bindings()

    def action_peek(self) -> None:
        """Open the peek on the focused row, or close it."""
        pane = self.query_one(PeekPane)
        if pane.display:
            pane.close()
        elif self.session_list.current is not None:
            pane.open()

    def action_next(self) -> None:
        """`n`: open the session that needs its person most, as `lunavect next` does (the same rule, the same
        way back as Enter); the row gets the focus when the list shows it."""
        waiting = needs_person(self.rows.sessions)
        if not waiting:
            self.show_message(NOTHING_WAITS[:1].upper() + NOTHING_WAITS[1:] + ".")
            return
        self.session_list.select_id(waiting[0].id)
        self.open_session(waiting[0])

    def action_focus_search(self) -> None:
        self.query_one(SearchInput).focus()

    def action_first_row(self) -> None:
        self.session_list.focus_first_row()

    def action_toggle_awaiting(self) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, awaiting=not self.filter.awaiting))

    def action_toggle_active(self) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, active=not self.filter.active))

    def action_cycle_provider(self) -> None:
        """`c`: all, each client the bar shows, all again (nothing to cycle while one client alone has sessions)."""
        following = filters.following(self.rows.provider_choices(self.filter), self.filter.provider)
        self.set_filter(msgspec.structs.replace(self.filter, provider=following))

    def action_toggle_usage(self) -> None:
        """`t`: the usage column on or off, kept for the next time the panel opens."""
        self.usage_column = not self.usage_column
        conn = self._connection()
        if conn is not None:
            try:
                preferences.keep_usage_column(conn, self.usage_column)
            except sqlite3.Error as exc:
                self.show_message(f"The setting could not be saved: {exc}")
        self._redraw()

    def action_hidden(self) -> None:
        """`h`: the hidden sessions, in a view of their own (h or Esc there comes back)."""
        self.app.push_screen(HiddenScreen(self._clock))
        self.app.call_after_refresh(self._redraw)

    def action_settings(self) -> None:
        conn = self._connection()
        if conn is None:
            return
        from lunavect.frontends.tui.editor_settings import EditorSettings
        from lunavect.frontends.tui.notify_settings import NotificationSettings

        notifications = NotificationSettings.from_store(conn, self.show_message)
        self.app.push_screen(
            SettingsScreen(auto_hide_after(conn), self._set_auto_hide, notifications, EditorSettings())
        )

    def _set_auto_hide(self, seconds: float | None) -> None:
        conn = self._connection()
        if conn is None:
            return
        try:
            arrangement.set_auto_hide_after(conn, seconds)
        except sqlite3.Error as exc:
            self.show_message(f"The setting could not be saved: {exc}")
            return
        self.reload()

    # -- what the widgets tell ------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def search_changed(self, event: Input.Changed) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, search=event.value))

    @on(Input.Submitted, "#search")
    @on(LeftSearch)
    def search_left(self) -> None:
        """Down or Enter in the search field: the first row (the guide's keyboard)."""
        session_list = self.session_list
        if session_list.sessions:
            session_list.focus()
            session_list.cursor = 0

    @on(LeftTop)
    def list_left_top(self) -> None:
        self.query_one(SearchInput).focus()

    @on(PeekClosed)
    def peek_closed(self) -> None:
        self.session_list.focus()

    @on(Report)
    def reported(self, event: Report) -> None:
        self.show_message(event.text)

    @on(Counter.Selected)
    def counter_selected(self, event: Counter.Selected) -> None:
        """The awaiting-input counter, here or on the hidden view (which it leaves): only the sessions that
        await input, or all of them again."""
        event.stop()
        if event.counter.id == "awaiting":
            if isinstance(self.app.screen, HiddenScreen):
                self.app.pop_screen()
            self.action_toggle_awaiting()

    @on(Toolbar.ProviderChosen)
    def provider_chosen(self, event: Toolbar.ProviderChosen) -> None:
        self.set_filter(msgspec.structs.replace(self.filter, provider=event.provider))

    @on(Button.Pressed)
    def button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "active":
            self.action_toggle_active()
        elif button == "hidden":
            self.action_hidden()
        elif button == "settings":
            self.action_settings()

    # -- what the person asks of a row --------------------------------------------------------------------

    @on(RowRequest)
    def row_requested(self, request: RowRequest) -> None:
        """A row's request, from this list or the hidden view's (the app passes those on)."""
        request.stop()
        session = request.session
        if request.action == "menu":
            hidden_view = isinstance(self.app.screen, HiddenScreen)
            self.app.push_screen(RowMenu(session, hidden_view), lambda chosen: self._menu_chosen(session, chosen))
            return
        self._perform(request.action, session, request.target)

    def _menu_chosen(self, session: Session, chosen: MenuChoice | None) -> None:
        if chosen is None:
            return
        if chosen == "move_up" or chosen == "move_down":
            self._move_by(session, -1 if chosen == "move_up" else 1)
            return
        self._perform(chosen, session, None)

    def _move_by(self, session: Session, step: int) -> None:
        rows = self.session_list.sessions
        index = next((i for i, s in enumerate(rows) if s.id == session.id), None)
        if index is None or not (0 <= index + step < len(rows)) or rows[index + step].pinned != session.pinned:
            return
        self._perform("move_before" if step < 0 else "move_after", session, rows[index + step].id)

    def _perform(self, action: RowAction, session: Session, target: str | None) -> None:
        conn = self._connection()
        if conn is None:
            return
        try:
            if action == "open":
                self.open_session(session)
            elif action == "folder":
                self.open_folder(session)
            elif action == "copy_resume":
                if session.resume:
                    self.app.copy_to_clipboard(session.resume)
                    self.show_message(f"Copied: {session.resume}")
            else:
                said = row_actions.arrange(conn, self.history, action, session, target, self._clock())
                if said:
                    self.show_message(said)
                if action == "hide":
                    self.app.refresh_bindings()
        except arrangement.ArrangeError as exc:
            self.show_message(str(exc))
        except sqlite3.Error as exc:
            self.show_message(f"The store could not be changed: {exc}")
        self.reload()

    def open_session(self, session: Session) -> None:
        """Return to the session, or offer its resume command once it has finished. Locating a session may
        wait for a terminal to answer, so it runs off the screen's thread; the outcome arrives as the message
        at the top."""
        others = [s for s in self.rows.sessions if s.id != session.id]
        self.show_message(f"Opening {row_actions.title_of(session)}…")
        self.run_worker(lambda: self._open_in_thread(session, others), thread=True, group="open", exclusive=True)

    def _open_in_thread(self, session: Session, others: list[Session], resume: bool = False) -> None:
        message, command = row_actions.open_outcome(session, others, resume)
        self.app.call_from_thread(self.show_message, message)
        if command is not None:  # finished, and nothing was run: ask first (inside tmux and outside alike)
            again = partial(self.run_worker, partial(self._open_in_thread, session, others, True), thread=True)
            title = row_actions.title_of(session)
            self.app.call_from_thread(ask_to_resume, self.app, title, message, command, self.show_message, again)

    def open_folder(self, session: Session) -> None:
        if not session.cwd:
            return
        message, to_copy = row_actions.folder_outcome(session.cwd)
        if to_copy is not None:
            self.app.copy_to_clipboard(to_copy)
        self.show_message(message)
