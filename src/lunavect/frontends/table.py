"""The plain text table of sessions that `lunavect list` and `lunavect watch` print."""

from __future__ import annotations

import datetime as _dt
import shutil

from lunavect.core.model import Session
from lunavect.core.times import elapsed, epoch

COLUMNS = ("STATE", "DETAIL", "FOR", "PROVIDER", "PROJECT", "TITLE", "ID")


def _ago(iso: str | None, now: _dt.datetime) -> str:
    then = epoch(iso)
    return "" if then is None else elapsed(now.timestamp() - then)


def detail(session: Session) -> str:
    parts = []
    if session.activity:
        parts.append(session.activity)
    if session.error:
        parts.append(session.error)
    if session.background:
        parts.append("+" + str(sum(session.background.values())) + " bg")
    return " ".join(parts)


# A title longer than this is cut, so that the id after it stays on a normal terminal's line.
TITLE_WIDTH = 48


def _clip(title: str) -> str:
    return title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + "…"


def render(sessions: list[Session], now: _dt.datetime | None = None, width: int | None = None) -> str:
    now = now or _dt.datetime.now(_dt.UTC)
    width = width or shutil.get_terminal_size((120, 24)).columns
    rows = [
        (
            s.state + (" (hidden)" if s.hidden else "") + (" *" if s.pinned else ""),
            detail(s),
            _ago(s.since, now),
            s.provider,
            s.project or "",
            _clip((s.title or "").replace("\n", " ")),
            s.session_id[:8],
        )
        for s in sessions
    ]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(COLUMNS)]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(COLUMNS)).rstrip()]
    for row in rows:
        lines.append("  ".join(v.ljust(widths[i]) for i, v in enumerate(row)).rstrip())
    return "\n".join(line[:width] for line in lines)
