"""Times as lunavect reads, stores and shows them: one ISO-8601 reader, one writer, one duration format.

The clients write RFC 3339 times (`2026-11-29T14:38:32.771Z`), the snapshot writes the same shape, and every
front end shows a duration the same way, so each of these has one owner here. Pure: the caller passes the
times.
"""

from __future__ import annotations

import datetime as _dt
import math

# The times lunavect believes: from the epoch to 2100. A file or event may carry any number (1e300, -5, NaN);
# outside this range it is no time at all, because a stored 1e300 made every later conversion raise, at every
# start of the collector, long after the file that said it was gone.
EARLIEST = 0.0
LATEST = 4102444800.0  # 2100-01-01T00:00:00Z


def bounded(value: object) -> float | None:
    """`value` as seconds since the epoch when it is a number within [EARLIEST, LATEST], else None. Every
    time that enters from outside goes through here (or through `epoch`, which does)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return seconds if math.isfinite(seconds) and EARLIEST <= seconds <= LATEST else None


def epoch(value: object) -> float | None:
    """Seconds since the epoch of an ISO-8601 time (a time without a zone is UTC, as the clients mean it);
    None when absent or malformed."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.UTC)
    try:
        seconds = parsed.timestamp()  # always a finite float: `bounded` need only check the range
    except (OverflowError, ValueError):  # year 1 with a positive offset, and the like
        return None
    return seconds if EARLIEST <= seconds <= LATEST else None


def iso(ts: float | None) -> str | None:
    """The snapshot's time: UTC to the millisecond, with a `Z`; None for a time outside `bounded`'s range
    (already stored before times were bounded), never an exception."""
    if bounded(ts) is None:
        return None
    assert ts is not None
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def elapsed(seconds: float) -> str:
    """A duration as every front end shows it: 45s, 3m 05s, 2h 07m, 3d 04h (never negative)."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    if seconds < 86400:
        return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d {seconds % 86400 // 3600:02d}h"
