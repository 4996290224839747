"""Times as lunavect reads, stores and shows them: one ISO-8601 reader, one writer, one duration format.

The clients write RFC 3339 times (`2026-11-29T14:38:32.771Z`), the snapshot writes the same shape, and every
front end shows a duration the same way, so each of these has one owner here. Pure: the caller passes the
times.
"""

from __future__ import annotations

import datetime as _dt

from lunavect.core.bounds import EARLIEST, LATEST, bounded, real


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


def local(ts: object) -> _dt.datetime | None:
    """`ts` as a local date and time, or None when it is no time `bounded` believes. The one way lunavect turns
    seconds into a date: `datetime.fromtimestamp` raises on 1e300, NaN or an int of a thousand digits, and a
    stored value of any of these used to end every front end that showed it."""
    seconds = bounded(ts)
    return None if seconds is None else _dt.datetime.fromtimestamp(seconds)


def utc(ts: object) -> _dt.datetime | None:
    """`ts` as an aware UTC date and time, or None when it is no time `bounded` believes (see `local`)."""
    seconds = bounded(ts)
    return None if seconds is None else _dt.datetime.fromtimestamp(seconds, _dt.UTC)


def local_text(ts: object, fmt: str, missing: str = "") -> str:
    """`ts` as local time in `fmt` (strftime), or `missing` when it is no time."""
    when = local(ts)
    return missing if when is None else when.strftime(fmt)


def iso(ts: object, timespec: str = "milliseconds") -> str | None:
    """The snapshot's time: UTC to the millisecond, with a `Z`; None for a time outside `bounded`'s range
    (already stored before times were bounded), never an exception."""
    when = utc(ts)
    return None if when is None else when.isoformat(timespec=timespec).replace("+00:00", "Z")


def _whole_seconds(seconds: float) -> int:
    """A duration shown in whole seconds, never negative: one that is no number, NaN or infinite (from a time
    that slipped past `bounded`) shows as 0 rather than raising."""
    finite = real(seconds)
    return max(0, int(finite)) if finite is not None else 0


def elapsed(seconds: float) -> str:
    """A duration as every front end shows it: 45s, 3m 05s, 2h 07m, 3d 04h (never negative; a duration that
    is no number, NaN or infinite from a time that slipped past `bounded`, shows as 0s rather than raising)."""
    seconds = _whole_seconds(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    if seconds < 86400:
        return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d {seconds % 86400 // 3600:02d}h"


def age(seconds: float) -> str:
    """How long ago something happened, to the unit that matters at that distance: `now`, `3 min`, `2 h`, `5 d`
    (a row's "last did anything": a second's precision would redraw every row every second for nothing)."""
    seconds = _whole_seconds(seconds)
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{min(seconds // 86400, 9999)} d"


def span(seconds: float) -> str:
    """A duration ahead, to the minute: `45 m`, `1 h 20 m`, `2 d 3 h` (how long a rate-limit window lasts)."""
    minutes = _whole_seconds(seconds) // 60
    if minutes < 60:
        return f"{minutes} m"
    if minutes < 1440:
        hours, rest = divmod(minutes, 60)
        return f"{hours} h {rest} m" if rest else f"{hours} h"
    days, rest = divmod(minutes // 60, 24)
    return f"{min(days, 9999)} d {rest} h" if rest else f"{min(days, 9999)} d"
