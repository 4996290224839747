"""The plain text table of sessions that `lunavect list` and `lunavect watch` print: the panel's words and marks
(`frontends.rows`, `core.state_words`), so a row says here what it says on the panel ("Permission needed:
Bash", ⚑ pinned, ● open); `list --json` keeps the raw contract."""

from __future__ import annotations

import datetime as _dt
import shutil

from lunavect.core.model import Session
from lunavect.core.state_words import PIN_MARK
from lunavect.core.terminal_text import clean
from lunavect.frontends.rows import background_count, last_seen, place, state_label, timer

# The panel's columns, and the id every command takes: the pin mark, the state with its detail, the number of
# Claude's background tasks (the panel's capsule), the timer, open (●) or ended (○) and since when.
COLUMNS = ("", "STATE", "", "TIMER", "LAST", "CLIENT", "PROJECT", "TITLE", "ID")


# The title gives way first when a line would not fit: the id after it is what every command takes.
_TITLE = COLUMNS.index("TITLE")
_MIN_TITLE = 12


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render(sessions: list[Session], now: _dt.datetime | None = None, width: int | None = None) -> str:
    now = now or _dt.datetime.now(_dt.UTC)
    width = width or shutil.get_terminal_size((120, 24)).columns
    clock = now.timestamp()
    rows: list[tuple[str, ...]] = [
        (
            PIN_MARK if s.pinned else "",
            clean(state_label(s)) + (" (hidden)" if s.hidden else ""),
            str(background_count(s) or ""),
            timer(s, clock),
            last_seen(s, clock),
            clean(s.provider),
            clean(place(s)),
            clean(s.title),
            clean(s.session_id[:8]),
        )
        for s in sessions
    ]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(COLUMNS)]
    shown = [i for i, w in enumerate(widths) if w]  # no pinned row, no background task: no empty column
    excess = sum(widths) + 2 * (len(shown) - 1) - width
    if excess > 0:
        widths[_TITLE] = max(_MIN_TITLE, widths[_TITLE] - excess)
        rows = [(*r[:_TITLE], _clip(r[_TITLE], widths[_TITLE]), *r[_TITLE + 1 :]) for r in rows]
    lines = ["  ".join(COLUMNS[i].ljust(widths[i]) for i in shown).rstrip()]
    for row in rows:
        lines.append("  ".join(row[i].ljust(widths[i]) for i in shown).rstrip())
    return "\n".join(line[:width] for line in lines)
