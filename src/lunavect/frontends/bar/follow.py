"""`status --follow`: one line each time what the bar shows changes, and nothing while nothing does.

It wakes only on the change feed (the collector's notification after a commit that front ends see), renders,
and prints only when the line differs from the last one: a commit that changes nothing a bar shows (a title, a
pin) prints nothing. While no collector runs, the feed's own fallback checks the store's version cheaply.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from typing import TextIO

from lunavect.listing import changes
from lunavect.listing.attention import Summary, summarize

# How often a follower with no collector to listen to looks whether one runs, and starts one if not.
COLLECTOR_LOOK_S = 2.0


def follow(
    conn: sqlite3.Connection,
    render: Callable[[Summary], str],
    out: TextIO | None = None,
    feed: changes.Feed | None = None,
    lines: int | None = None,
    ensure_collector: Callable[[], object] = lambda: None,
) -> None:
    """Print the current line, then one per change until stopped (`lines` bounds it for tests).

    A bar runs this for days: when the collector it listens to goes away, `ensure_collector` starts another
    (the feed meanwhile checks the store's version itself, and subscribes again once one listens)."""
    out = out or sys.stdout
    feed = feed or changes.Feed(version=lambda: int(conn.execute("PRAGMA data_version").fetchone()[0]))
    feed.wait(timeout=0)  # subscribe before the first read, so no commit falls between the two
    last = None
    printed = 0
    try:
        while True:
            line = render(summarize(conn))
            if line != last:
                out.write(line + "\n")
                out.flush()
                last = line
                printed += 1
                if lines is not None and printed >= lines:
                    return
            # Unsubscribed, the wait is bounded: a collector that was still going away when the feed lost it (so
            # `ensure_collector` saw it running) is replaced at the next look, not never.
            changed = feed.wait(timeout=None if feed.subscribed else COLLECTOR_LOOK_S)
            if not changed and feed.stop.is_set():
                return
            if not feed.subscribed:
                ensure_collector()
    finally:
        feed.close()
