"""The columns of a session list: which ones fit a width, what each row says in each, and the header above.

Kept apart from the list widget so that the header and the rows follow one layout rule, and so that what a
cell says is a plain function of the session and the clock.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from lunavect.core import clients
from lunavect.core.model import Session
from lunavect.core.state_words import PIN_MARK, tone
from lunavect.core.terminal_text import clean
from lunavect.frontends import rows
from lunavect.usage.text import usage_brief


@dataclass(frozen=True)
class Column:
    name: str
    title: str
    width: int
    align: str = "left"


# The optional usage column (`t` in the panel): wide enough for "999.9k · 100 %".
USAGE_WIDTH = 14
# Open or ended, and since when: wide enough for "● 59 min" and "○ 9999 d".
LAST_WIDTH = 8


def layout(width: int, usage: bool = False) -> tuple[Column, ...]:
    """The columns at a given width, with the usage column when the person turned it on: the title takes what
    the others leave; where it would be narrow, the STATE column narrows first, and the project column gives way
    only before the title would be narrower than it. The client column fits the longest client id, so a client
    added later is named whole (`opencode`)."""
    return _layout(width, usage, max(len("CLIENT"), *(len(client.id) for client in clients.every())))


# The narrowest the STATE column gets before the project column gives way ("Permission ne…" still reads), and
# the title width it gives its own up for.
STATE_MIN = 14
TITLE_WANTED = 16


@functools.lru_cache(maxsize=8)
def _layout(width: int, usage: bool, client: int) -> tuple[Column, ...]:
    project, state = (16, 26) if width >= 100 else (10, 22)
    gutter = 2

    def columns(state_width: int) -> list[Column]:
        return [
            Column("project", "PROJECT", project),
            Column("provider", "CLIENT", client),
            Column("state", "STATE", state_width),
            Column("capsule", "", 5, "right"),
            *([Column("usage", "USAGE", USAGE_WIDTH, "right")] if usage else []),
            Column("last", "LAST", LAST_WIDTH, "right"),
            Column("timer", "TIMER", 8, "right"),
        ]

    def title_room(fixed: list[Column]) -> int:
        return width - gutter - sum(c.width + 1 for c in fixed) - 1

    fixed = columns(state)
    # Where the title would be narrow, STATE gives up its width first (an 80-column terminal keeps PROJECT), and
    # only then, where the title would be narrower than the project column, that column goes.
    short = max(project, TITLE_WANTED) - title_room(fixed)
    if short > 0:
        fixed = columns(max(STATE_MIN, state - short))
    if title_room(fixed) < project:
        fixed = [c for c in fixed if c.name != "project"]
    used = gutter + sum(c.width + 1 for c in fixed)
    title = max(8, width - used - 1)
    return (Column("gutter", "", gutter), Column("title", "TITLE", title), *fixed)


def fit(text: str, width: int, align: str = "left") -> str:
    """Exactly `width` cells: cut with an ellipsis, or padded."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    if align == "right":
        return " " * (width - cell_len(text)) + text
    return set_cell_size(text, width)


class ColumnHeader(Widget):
    """The column titles above a session list, laid out by the same rule as its rows."""

    # Whether the usage column shows (the panel sets it here and on the list below, from one setting).
    usage_column = False

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style
        if y:
            return Strip.blank(width, style)
        title_style = style + Style(bold=True)
        segments: list[Segment] = []
        for number, column in enumerate(layout(width, self.usage_column)):
            cell = fit(column.title, column.width, column.align)
            word = cell.strip()
            if number:
                segments.append(Segment(" ", style))
            if not word:
                segments.append(Segment(cell, style))
                continue
            before = cell.index(word)
            segments.append(Segment(cell[:before], style))
            segments.append(Segment(word, title_style))
            segments.append(Segment(cell[before + len(word) :], style))
        return Strip(segments).adjust_cell_length(width, style)


def cell(session: Session, column: Column, now: float) -> tuple[str, str | None]:
    """What a row shows in `column`, and the component class that styles it (None: unstyled). Text from
    outside (titles, folders) is cleaned here, where it is shown."""
    name = column.name
    if name == "gutter":
        return (PIN_MARK if session.pinned else ""), "session-list--pin"
    if name == "title":
        # An ended session is drawn quieter: its client no longer runs.
        return clean(session.title or "(untitled)"), "session-list--title" if session.open else "session-list--ended"
    if name == "project":
        return clean(rows.place(session)), "session-list--dim"
    if name == "provider":
        return clean(session.provider), "session-list--dim"
    if name == "state":
        return clean(rows.state_label(session)), f"session-list--tone-{tone(session.state)}"
    if name == "capsule":
        count = rows.background_count(session)
        if not count:
            return "", None
        return f" {count if count < 100 else '99+'} ", "session-list--capsule"
    if name == "timer":
        return rows.timer(session, now), "session-list--timer"
    if name == "last":
        return rows.last_seen(session, now), "session-list--open" if session.open else "session-list--ended"
    if name == "usage":
        return usage_brief(session.usage), "session-list--dim"
    return "", None
