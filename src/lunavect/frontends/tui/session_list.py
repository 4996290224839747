"""The list of sessions: one line per session, drawn line by line.

It draws only the lines on screen (Textual's line API), so a thousand sessions cost what thirty do, and the
timers tick by redrawing those lines alone. It knows nothing of the store: it shows what its screen gives it
and tells its screen what the person asked for (`messages.RowRequest`: open, hide, pin, move, the row menu).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from lunavect.core.model import Session
from lunavect.core.state_words import TONES
from lunavect.frontends import rows
from lunavect.frontends.tui.columns import Column, cell, fit, layout
from lunavect.frontends.tui.messages import LeftTop, RowAction, RowRequest

# Moving the row focus: the same keys in the session list and the hidden list.
NAVIGATION_BINDINGS = [
    Binding("up,k", "cursor_up", "Up", show=False),
    Binding("down,j", "cursor_down", "Down", show=False),
    Binding("home", "cursor_first", "First", show=False),
    Binding("end", "cursor_last", "Last", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
]


# How often the rows on screen are checked for a "last did anything" that reads differently by now (`3 min` to
# `4 min`): only a line whose words changed is drawn again.
AGES_EVERY_S = 20.0


class SessionList(ScrollView, can_focus=True):
    """One line per session; the cursor row is the focused session."""

    COMPONENT_CLASSES = {
        "session-list--cursor",
        "session-list--cursor-blurred",
        "session-list--drop",
        "session-list--pin",
        "session-list--title",
        "session-list--dim",
        "session-list--capsule",
        "session-list--timer",
        "session-list--open",
        "session-list--ended",
        # A row's state is coloured by its tone (`core.state_words.TONES`), never by the state itself.
        *(f"session-list--tone-{tone}" for tone in TONES),
    }

    BINDINGS = [
        Binding("enter", "open", "Open", show=True),
        *NAVIGATION_BINDINGS,
        Binding("alt+up", "move_row(-1)", "Move up", show=False),
        Binding("alt+down", "move_row(1)", "Move down", show=False),
        Binding("delete", "hide", "Hide", show=True),
        Binding("p", "pin", "Pin", show=True),
        Binding("m", "menu", "Menu", show=True),
        Binding("escape", "clear_cursor", "Clear", show=False),
    ]

    cursor: reactive[int | None] = reactive(None, always_update=True, init=False)

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        hidden_view: bool = False,
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - Textual's name
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.clock = clock
        self.hidden_view = hidden_view
        self.sessions: list[Session] = []
        # The optional usage column (the panel sets it from the person's setting).
        self.usage_column = False
        # Called when a line with a running timer is drawn: the panel's tick, paused while none shows, resumes.
        self.timer_shown: Callable[[], None] = lambda: None
        self._drag_from: int | None = None
        self._drag_to: int | None = None
        self._hover: int | None = None
        # The Click that follows a drag's release is not a click on the drop row.
        self._swallow_click = False
        self._click_opened = False
        # What each session's "last did anything" said when its line was last drawn (`refresh_ages`).
        self._ages: dict[str, str] = {}

    def on_mount(self) -> None:
        self.set_interval(AGES_EVERY_S, self.refresh_ages)

    # -- data ---------------------------------------------------------------------------------------------

    def set_sessions(self, sessions: list[Session]) -> None:
        """Show a new list, keeping the cursor on the same session when it is still there."""
        if sessions == self.sessions:
            return  # nothing to redraw: an idle panel costs nothing between timer ticks
        before = self.sessions
        if len(before) == len(sessions) and all(a.id == b.id for a, b in zip(before, sessions, strict=True)):
            # The same rows in the same places (the usual change: one session's state): redraw only the lines
            # on screen whose session changed; the cursor stays where it is.
            self.sessions = sessions
            top = int(self.scroll_offset.y)
            for line in range(top, min(len(sessions), top + self.size.height)):
                if before[line] is not sessions[line] and before[line] != sessions[line]:
                    self.refresh_line(line)
            return
        current = self.current
        self.sessions = sessions
        self.virtual_size = Size(self.size.width, len(sessions))
        if current is not None:
            index = next((i for i, s in enumerate(sessions) if s.id == current.id), None)
            if index is None and self.cursor is not None:
                index = min(self.cursor, len(sessions) - 1) if sessions else None
            self.set_reactive(SessionList.cursor, index)
        elif self.cursor is not None and self.cursor >= len(sessions):
            self.set_reactive(SessionList.cursor, None)
        self._hover = None
        self.refresh()

    @property
    def current(self) -> Session | None:
        if self.cursor is None or not (0 <= self.cursor < len(self.sessions)):
            return None
        return self.sessions[self.cursor]

    def select_id(self, key: str) -> bool:
        for index, session in enumerate(self.sessions):
            if session.id == key:
                self.cursor = index
                return True
        return False

    def focus_first_row(self) -> None:
        """Take the focus, on the first row unless a row has it already (Down while nothing has the focus)."""
        if self.sessions:
            self.focus()
            if self.cursor is None:
                self.cursor = 0

    def timer_rows(self) -> list[int]:
        """The rows on screen that show a running timer."""
        top = int(self.scroll_offset.y)
        shown = self.sessions[top : top + self.size.height]
        return [top + offset for offset, s in enumerate(shown) if rows.timer_start(s) is not None]

    def refresh_ages(self) -> int:
        """Redraw the lines on screen whose "last did anything" reads differently now; returns how many."""
        now = self.clock()
        top = int(self.scroll_offset.y)
        stale = [
            top + offset
            for offset, s in enumerate(self.sessions[top : top + self.size.height])
            if s.id in self._ages and self._ages[s.id] != rows.last_seen(s, now)
        ]
        for index in stale:
            self.refresh_line(index)
        return len(stale)

    def tick(self) -> bool:
        """Redraw the running timers on screen, and nothing else; False when none is on screen."""
        rows = self.timer_rows()
        for index in rows:
            self.refresh_line(index)
        return bool(rows)

    # -- drawing ------------------------------------------------------------------------------------------

    def watch_cursor(self, old: int | None, new: int | None) -> None:
        if new is not None:
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, immediate=True)
        self.refresh()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.sessions))

    def _style(self, name: str) -> Style:
        """A column's foreground (colour and emphasis), blended with this widget's background but without it,
        so that the cursor row's background shows through every column."""
        full = self.get_component_rich_style(name)
        return Style(color=full.color, bold=full.bold, italic=full.italic, dim=full.dim)

    def _fill(self, name: str) -> Style:
        """A whole-cell style (background included): the cursor row, the drop target, the capsule."""
        full = self.get_component_rich_style(name)
        return Style(bgcolor=full.bgcolor, color=full.color, bold=full.bold)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        index = y + int(self.scroll_offset.y)
        base = self.rich_style
        if not (0 <= index < len(self.sessions)):
            return Strip.blank(width, base)
        session = self.sessions[index]
        if rows.timer_start(session) is not None:
            self.timer_shown()
        row_style = base
        if index == self._drag_to and self._drag_from is not None and self._drag_to != self._drag_from:
            row_style = base + self._fill("session-list--drop")
        elif index == self.cursor:
            row_style = base + self._fill("session-list--cursor" if self.has_focus else "session-list--cursor-blurred")
        now = self.clock()
        self._ages[session.id] = rows.last_seen(session, now)
        segments: list[Segment] = []
        for number, column in enumerate(layout(width, self.usage_column)):
            text, style = self._cell(session, column, now)
            if number:
                segments.append(Segment(" ", row_style))
            cell = fit(text, column.width, column.align)
            if column.name == "capsule" and text:
                # Only the capsule itself is blue, not the room around it.
                pad = len(cell) - len(cell.lstrip(" ")) - 1
                segments.append(Segment(cell[:pad], row_style))
                segments.append(Segment(cell[pad:], row_style + style))
            else:
                segments.append(Segment(cell, row_style + style))
        strip = Strip(segments)
        return strip.adjust_cell_length(width, row_style)

    def _cell(self, session: Session, column: Column, now: float) -> tuple[str, Style]:
        text, name = cell(session, column, now)
        if name is None:
            return text, Style()
        # The capsule is a filled cell; every other column keeps the row's background.
        return text, (self._fill(name) if column.name == "capsule" else self._style(name))

    # -- keyboard -----------------------------------------------------------------------------------------

    def _request(self, action: RowAction, target: str | None = None) -> None:
        session = self.current
        if session is None:
            raise SkipAction()
        self.post_message(RowRequest(action, session, target))

    def action_cursor_down(self) -> None:
        if not self.sessions:
            return
        self.cursor = 0 if self.cursor is None else min(self.cursor + 1, len(self.sessions) - 1)

    def action_cursor_up(self) -> None:
        if not self.sessions:
            return
        if self.cursor is None:
            self.cursor = len(self.sessions) - 1
        elif self.cursor == 0:
            self.post_message(LeftTop())
        else:
            self.cursor -= 1

    def action_cursor_first(self) -> None:
        if self.sessions:
            self.cursor = 0

    def action_cursor_last(self) -> None:
        if self.sessions:
            self.cursor = len(self.sessions) - 1

    def action_page_down(self) -> None:
        if self.sessions:
            step = max(1, self.size.height - 1)
            self.cursor = min(len(self.sessions) - 1, (self.cursor or 0) + step)

    def action_page_up(self) -> None:
        if self.sessions:
            step = max(1, self.size.height - 1)
            self.cursor = max(0, (self.cursor or 0) - step)

    def action_open(self) -> None:
        self._request("restore" if self.hidden_view else "open")

    def action_restore(self) -> None:
        self._request("restore")

    def action_hide(self) -> None:
        self._request("restore" if self.hidden_view else "hide")

    def action_pin(self) -> None:
        self._request("pin")

    def action_menu(self) -> None:
        self._request("menu")

    def action_move_row(self, step: int) -> None:
        """Alt+Up/Down: swap places with the neighbour (the panel keeps pinned rows above the others)."""
        session = self.current
        if session is None or self.cursor is None or self.hidden_view:
            return
        neighbour = self.cursor + step
        if not (0 <= neighbour < len(self.sessions)):
            return
        other = self.sessions[neighbour]
        if other.pinned != session.pinned:
            return
        self.post_message(RowRequest("move_before" if step < 0 else "move_after", session, other.id))

    def action_clear_cursor(self) -> None:
        """Esc: no row is focused any more (a second Esc goes to the screen, e.g. to leave a view)."""
        if self.cursor is None:
            raise SkipAction()
        self.cursor = None
        self.screen.set_focus(None)

    # -- mouse --------------------------------------------------------------------------------------------

    def _row_at(self, event: events.MouseEvent, captured: bool = False) -> int | None:
        offset = event.get_content_offset_capture(self) if captured else event.get_content_offset(self)
        if offset is None:
            return None
        index = offset.y + int(self.scroll_offset.y)
        if captured:
            return max(0, min(index, len(self.sessions) - 1)) if self.sessions else None
        return index if 0 <= index < len(self.sessions) else None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.button != 1 or self.hidden_view:
            return
        index = self._row_at(event)
        if index is None:
            return
        self._drag_from = self._drag_to = index
        self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._drag_from is not None:
            index = self._row_at(event, captured=True)
            if index is not None and index != self._drag_to:
                self._drag_to = index
                self.refresh()
            return
        index = self._row_at(event)
        if index != self._hover:
            self._hover = index
            self.tooltip = Text(rows.tooltip(self.sessions[index], self.clock())) if index is not None else None

    def on_mouse_up(self, event: events.MouseUp) -> None:
        start, end = self._drag_from, self._drag_to
        if start is None:
            return
        index = self._row_at(event, captured=True)
        if index is not None:
            end = index
        self._drag_from = self._drag_to = None
        self.release_mouse()
        self.refresh()
        if end is None or end == start or not (0 <= start < len(self.sessions)):
            return
        self._swallow_click = True
        moving, target = self.sessions[start], self.sessions[end]
        if moving.pinned != target.pinned:
            self.app.notify("Pinned sessions stay above the others: pin or unpin it first.", severity="warning")
            return
        self.cursor = start
        self.post_message(RowRequest("move_before" if end < start else "move_after", moving, target.id))

    def on_click(self, event: events.Click) -> None:
        if self._swallow_click:
            self._swallow_click = False
            return
        index = self._row_at(event)
        if index is None:
            return
        self.focus()
        already = self.cursor == index
        self.cursor = index
        session = self.sessions[index]
        if event.button == 3:
            self.post_message(RowRequest("menu", session))
            return
        # A click on the focused row, or a double click, opens it (the guide: "Click a row"); a first click
        # on another row only focuses it, so that a click never opens the wrong row by surprise.
        opens = (event.chain >= 2 and not self._click_opened) or (event.chain == 1 and already)
        self._click_opened = opens
        if opens:
            self.post_message(RowRequest("restore" if self.hidden_view else "open", session))


class HiddenSessionList(SessionList, inherit_bindings=False):
    """The hidden list: the same rows, whose one action is to restore them (the row menu offers the rest)."""

    BINDINGS = [
        Binding("enter", "restore", "Restore", show=True),
        *NAVIGATION_BINDINGS,
        Binding("m", "menu", "Menu", show=True),
        Binding("escape", "clear_cursor", "Clear", show=False),
    ]

    def __init__(self, *, clock: Callable[[], float], id: str | None = None) -> None:  # noqa: A002
        super().__init__(clock=clock, hidden_view=True, id=id)
