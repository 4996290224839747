"""The panel's small widgets: the header with its counters and the fullest rate-limit window, the message line
and the stale note."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from lunavect import store
from lunavect.core.state_words import count_words
from lunavect.listing.attention import Summary
from lunavect.usage.bar import limits_note

# How often the header reads the rate-limit windows again.
LIMITS_EVERY_S = 30.0
# How often the header reads again how far a first start's reading of the history got, while it reads.
READING_EVERY_S = 2.0


def show_text(widget: Static, text: str) -> None:
    """Set a line's text only when it changed, and without a layout pass when its width stays the same.

    The panel sets its header and notes again at every change of the store; each `update` asks for a layout
    pass, and a layout pass repaints the whole screen: with a thousand sessions every visible row of the list
    is drawn again for a counter that went from 100 to 101, where only the changed row and the counter's cells
    need drawing."""
    old = widget.content
    if isinstance(old, str) and old == text:
        return
    same_size = (
        isinstance(old, str)
        and Content(old).cell_length == Content(text).cell_length
        and old.count("\n") == text.count("\n")
    )
    widget.update(text, layout=not same_size)


class Counter(Static):
    """One header counter; selecting the awaiting-input counter filters the list (the guide)."""

    class Selected(Message):
        def __init__(self, counter: Counter) -> None:
            super().__init__()
            self.counter = counter

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Selected(self))


class LimitsNote(Static):
    """The rate-limit window closest to its limit (`usage.bar.limits_note`: `codex 5 h 42 % · resets 14:00`,
    or `(old)`). Read every `LIMITS_EVERY_S` rather than at each change: Claude Code's figure arrives in the
    status-line wrapper's file, which no store change announces, and the read is a query and a file."""

    def __init__(self, conn: Callable[[], sqlite3.Connection | None], clock: Callable[[], float], **kw: Any) -> None:
        super().__init__("", markup=False, **kw)
        self._conn = conn
        self._clock = clock
        self.tooltip = "The rate-limit window closest to its limit (lunavect usage shows them all)"

    def on_mount(self) -> None:
        self.call_after_refresh(self.refresh_note)  # once the panel has opened its store
        self.set_interval(LIMITS_EVERY_S, self.refresh_note)

    def refresh_note(self) -> None:
        conn = self._conn()
        try:
            text = limits_note(conn, self._clock()) if conn is not None else None
        except (sqlite3.Error, OSError):
            text = None
        self.update(text or "")
        self.display = bool(text)


class PanelHeader(Horizontal):
    """The name, the current view, the fullest rate-limit window, and the working and awaiting-input counters."""

    def __init__(
        self,
        *,
        limits: Callable[[], sqlite3.Connection | None] | None = None,
        clock: Callable[[], float] = time.time,
        **kwargs: Any,
    ) -> None:
        """`limits`: the store to read the rate-limit windows from (no note without it)."""
        super().__init__(**kwargs)
        self._limits = limits
        self._clock = clock

    def compose(self) -> ComposeResult:
        yield Static("lunavect", classes="title")
        yield Static("", classes="view", id="view-name")
        yield Static("", classes="spacer")
        if self._limits is not None:
            yield ReadingNote(self._limits, id="reading")
            yield LimitsNote(self._limits, self._clock, id="limits")
        yield Counter("", classes="working", id="working")
        yield Counter("", classes="awaiting", id="awaiting")
        yield Counter("", classes="errors", id="errors")

    def show(self, counts: Summary, awaiting_selected: bool, view: str = "") -> None:
        """The counters in every surface's words (`core.state_words`); the errors counter only when some turn
        that failed needs its person (docs, "What needs you")."""
        show_text(self.query_one("#working", Counter), count_words("working", counts.working))
        awaiting_counter = self.query_one("#awaiting", Counter)
        show_text(awaiting_counter, count_words("awaiting_input", counts.awaiting_input))
        errors = self.query_one("#errors", Counter)
        show_text(errors, count_words("errors", counts.errors))
        errors.display = counts.errors > 0
        awaiting_counter.set_class(awaiting_selected, "-selected")
        awaiting_counter.tooltip = (
            "Showing only sessions that need a reply or permission: select again to show all"
            if awaiting_selected
            else "Show only sessions that need a reply or permission"
        )
        show_text(self.query_one("#view-name", Static), view)
        for note in self.query(ReadingNote):  # a first start may have begun reading since the panel opened
            note.refresh_note()


class MessageLine(Static):
    """The line at the top of a view: what became of the person's last request; it lasts until replaced or the
    panel closes. Its text is cleaned by the panel (it quotes titles and folders)."""

    def say(self, text: str) -> None:
        self.update(text)
        self.set_class(bool(text), "-shown")


class StaleNote(Static):
    """The warning line under the header while what the panel shows may be out of date (the collector is not
    running or is behind, the store cannot be read); hidden otherwise."""

    _shown = ""

    def show(self, reason: str | None) -> None:
        text = f"Not current: {reason}. `lunavect doctor` says why and what to run." if reason else ""
        if text != self._shown:
            self._shown = text
            self.update(text)
            self.set_class(bool(text), "-shown")


class ReadingNote(Static):
    """`reading history: 412 of 3,000` while a first start reads a long history (the collector's value
    `reading`), hidden otherwise. Read when the panel opens and then every READING_EVERY_S only while shown: a
    panel at rest reads nothing."""

    def __init__(self, conn: Callable[[], sqlite3.Connection | None], **kw: Any) -> None:
        super().__init__("", markup=False, **kw)
        self._conn = conn
        self._timer: Timer | None = None
        self.tooltip = "lunavect's first start is reading your past sessions (counts, usage, background work)"

    def on_mount(self) -> None:
        self.call_after_refresh(self.refresh_note)

    def refresh_note(self) -> None:
        conn = self._conn()
        try:
            reading = store.collector_values(conn).get("reading") if conn is not None else None
        except sqlite3.Error:
            reading = None
        show_text(self, f"reading history: {reading}" if reading else "")
        self.display = bool(reading)
        if reading and self._timer is None:
            self._timer = self.set_interval(READING_EVERY_S, self.refresh_note)
        elif not reading and self._timer is not None:
            self._timer.stop()
            self._timer = None
