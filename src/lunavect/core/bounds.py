"""The ranges lunavect believes a number from outside to lie in: a time, a percent, a count, a window's length.

A file, an event or a status line may carry any number: 1e300, -5, NaN (as a float a reader computed), True,
an int of a thousand digits. One such value stored unchecked made every later conversion raise (a time to a
date, a percent formatted in a bar), in every front end and serving thread, long after whatever wrote it was
gone. So each number is checked once where it enters, here: a value outside its range is no value (None, or 0
for a count), never an exception. Readers of what an older version stored check it again with these same
functions.

No import at all: the status-line wrapper, which runs at every redraw of Claude Code's status line without
`site`, uses it as the collector does, and even `math` would add a quarter of a millisecond to each redraw.
"""

from __future__ import annotations

# The times lunavect believes: from the epoch to 2100. Outside this range a number is no time at all.
# Milliseconds are refused, not guessed: every client writes seconds (FACTS.md), and a millisecond value
# (1.8e12 for 2027) lies far past 2100, so it is no time rather than a time the client never said.
EARLIEST = 0.0
LATEST = 4102444800.0  # 2100-01-01T00:00:00Z
# A count no real session reaches (tokens, a context window); a larger value is a corrupt field.
MAX_COUNT = 1 << 40
# The longest rate-limit window a client could name: a year, in minutes.
MAX_WINDOW_MINUTES = 366 * 24 * 60
_INFINITY = float("inf")


def real(value: object) -> float | None:
    """`value` as a finite float when it is an int or a float (never a bool, whose True is 1), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return number if -_INFINITY < number < _INFINITY else None  # NaN compares false both ways


def bounded(value: object) -> float | None:
    """`value` as seconds since the epoch when it is a number within [EARLIEST, LATEST], else None. Every
    time that enters from outside goes through here (or through `times.epoch`, which checks the same range)."""
    seconds = real(value)
    return seconds if seconds is not None and EARLIEST <= seconds <= LATEST else None


def percent(value: object) -> float | None:
    """`value` as a percent when it is a number from 0 to 100, else None. A figure past 100 is refused rather
    than clamped: no client reports one, and 100 would claim a limit reached that nothing said was reached."""
    number = real(value)
    return number if number is not None and 0.0 <= number <= 100.0 else None


def count(value: object) -> int:
    """`value` when it is a whole number from 0 below MAX_COUNT, else 0 (a count that cannot be is none)."""
    # `type(...) is int` leaves out a bool (True is 1) in one test: this runs for every count of every record.
    return value if type(value) is int and 0 <= value < MAX_COUNT else 0


def http_status(value: object) -> int | None:
    """An HTTP status a client reported for a failed request: a whole number from 100 to 599, else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 100 <= value <= 599 else None


def window_minutes(value: object) -> int | None:
    """A rate-limit window's length: a whole number of minutes from 1 to a year, else None (not reported)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 1 <= value <= MAX_WINDOW_MINUTES else None
