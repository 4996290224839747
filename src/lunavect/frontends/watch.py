"""`lunavect watch`: the plain live table and its counters, redrawn in place, for a terminal that wants no panel."""

from __future__ import annotations

import datetime as _dt
import sqlite3
import sys
from collections.abc import Callable

from lunavect.frontends.rows import counts_text
from lunavect.frontends.table import render
from lunavect.listing import changes
from lunavect.listing.attention import summarize_sessions
from lunavect.listing.hosts import not_current_note
from lunavect.listing.sessions import read_sessions

CLEAR = "\x1b[H\x1b[2J"


def frame(conn: sqlite3.Connection, include_hidden: bool, explain_empty: Callable[[], str]) -> str:
    sessions = read_sessions(conn, include_hidden=include_hidden)
    # The panel's counters, in its words and marks, over every session (hiding never cancels work).
    counted = sessions if include_hidden else read_sessions(conn, include_hidden=True)
    stamp = _dt.datetime.now().strftime("%H:%M:%S")
    header = f"lunavect  {stamp}  {counts_text(summarize_sessions(counted))}"
    body = render(sessions) if sessions else explain_empty()
    note = not_current_note(conn)
    return f"{header}\n\n{body}\n" + (f"{note}\n" if note else "")


def run_watch(
    conn: sqlite3.Connection,
    interval: float,
    include_hidden: bool,
    explain_empty: Callable[[], str],
    frames: int | None = None,
) -> None:
    """Redraw as soon as the store changes (`lunavect.listing.changes`), and every `interval` seconds for the clock;
    `frames` bounds the loop for tests."""
    tty = sys.stdout.isatty()
    drawn = 0
    feed = changes.Feed(version=lambda: int(conn.execute("PRAGMA data_version").fetchone()[0]))
    try:
        while frames is None or drawn < frames:
            text = frame(conn, include_hidden, explain_empty)
            sys.stdout.write((CLEAR if tty else "") + text)
            sys.stdout.flush()
            drawn += 1
            if frames is not None and drawn >= frames:
                break
            feed.wait(interval)
    finally:
        feed.close()
