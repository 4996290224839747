"""How fast the collector ticks while its sources catch up with a history (`Batch.backlog`).

While sessions are still unlisted it ticks again at once: each tick starts with the hook spool, so a live
session is never kept waiting behind the listing. Once every session is listed, the whole reads that remain
(background work, counts) take at most READING_SHARE of a core: a person's first start with years of history
does not make their machine loud.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from lunavect.listing import changes

# Whole reads behind a complete list take at most this share of a core (the rest of the time the collector waits).
READING_SHARE = 0.5


def catch_up(
    tick: Callable[[], str | None],
    external: changes.ExternalCommits,
    publisher: changes.Publisher,
    stop: threading.Event,
    pause: Callable[[float], None] | None = None,
) -> str | None:
    """One more tick while the sources have work left: at once while sessions are still unlisted (each tick
    starts with the hook spool, so a live session is not kept waiting), then within READING_SHARE of a core.

    `pause(seconds)` is the wait between reading ticks; the collector's takes the hook events and other
    processes' commits that arrive meanwhile at once (without reading), so a whole read never keeps them
    waiting longer than the tick it is in."""
    if external.changed():
        publisher.publish()
    started = time.monotonic()
    backlog = tick()
    if backlog == "reading":
        rest = (time.monotonic() - started) * (1 - READING_SHARE) / READING_SHARE
        if pause is not None:
            pause(rest)
        else:
            stop.wait(rest)
    return backlog
