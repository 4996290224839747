"""The plain text table of sessions that `lunavect list` and `lunavect watch` print."""

from __future__ import annotations

import datetime as _dt
import shutil

from lunavect.core.model import Session
from lunavect.core.terminal_text import clean
from lunavect.core.times import elapsed, epoch
from lunavect.frontends.rows import last_seen, place

# LAST: open (●) or ended (○), and how long ago the session last did anything.
COLUMNS = ("STATE", "DETAIL", "FOR", "LAST", "PROVIDER", "PROJECT", "TITLE", "ID")


def _ago(iso: str | None, now: _dt.datetime) -> str:
    then = epoch(iso)
    return "" if then is None else elapsed(now.timestamp() - then)


def detail(session: Session) -> str:
    parts = []
    if session.activity:
        parts.append(clean(session.activity, 80))
    if session.error:
        parts.append(clean(session.error, 40))
    if session.background:
        parts.append("+" + str(sum(session.background.values())) + " bg")
    return " ".join(parts)


# The title gives way first when a line would not fit: the id after it is what every command takes.
_TITLE = COLUMNS.index("TITLE")
_MIN_TITLE = 12


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render(sessions: list[Session], now: _dt.datetime | None = None, width: int | None = None) -> str:
    now = now or _dt.datetime.now(_dt.UTC)
    width = width or shutil.get_terminal_size((120, 24)).columns
    rows: list[tuple[str, ...]] = [
        (
            clean(s.state) + (" (hidden)" if s.hidden else "") + (" *" if s.pinned else ""),
            detail(s),
            _ago(s.since, now),
            last_seen(s, now.timestamp()),
            clean(s.provider),
            clean(place(s)),
            clean(s.title),
            clean(s.session_id[:8]),
        )
        for s in sessions
    ]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(COLUMNS)]
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    if excess > 0:
        widths[_TITLE] = max(_MIN_TITLE, widths[_TITLE] - excess)
        rows = [(*r[:_TITLE], _clip(r[_TITLE], widths[_TITLE]), *r[_TITLE + 1 :]) for r in rows]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(COLUMNS)).rstrip()]
    for row in rows:
        lines.append("  ".join(v.ljust(widths[i]) for i, v in enumerate(row)).rstrip())
    return "\n".join(line[:width] for line in lines)
