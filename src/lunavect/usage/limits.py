"""Rate-limit windows per client and account: the newest report wins, and an old one says it is old.

Codex writes its account's windows into every rollout's `token_count` events; Claude Code hands them to its
status-line command only (`lunavect hooks install --statusline` records them). Either way the figure is as
old as the moment the client reported it: a window whose reset time has passed, or a report older than the
window itself, is shown as stale instead of as current.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import msgspec

from lunavect import paths
from lunavect.core import bounds, limit_history
from lunavect.core.clients import CLAUDE, LIMIT_WINDOWS, by_id
from lunavect.files.tail import open_regular
from lunavect.usage import pace


class LimitWindow(msgspec.Struct, frozen=True, omit_defaults=True):
    """One rate-limit window as the client reported it: how much is used, its length, when it resets."""

    used_percent: float
    window_minutes: int | None = None
    resets_at: float | None = None


class Limits(msgspec.Struct, frozen=True, omit_defaults=True):
    """An account's rate-limit windows at one moment (`at`), as one client's file recorded them."""

    at: float
    limit_id: str | None = None
    plan: str | None = None
    primary: LimitWindow | None = None
    secondary: LimitWindow | None = None
    # The recent figures, `[at, primary used, secondary used]` each (`core.limit_history`): any JSON, read back
    # checked, so that a damaged history (or one damaged point) never costs the report.
    history: Any = None


_decoder = msgspec.json.Decoder(Limits)


class Window(msgspec.Struct, omit_defaults=False):
    """One window as `lunavect usage --json` prints it."""

    name: str  # "primary" | "secondary" (Codex), "five_hour" | "seven_day" (Claude Code)
    used_percent: float
    window_minutes: int | None
    resets_at: float | None
    # The report is older than the window or its reset passed: the figure may no longer hold.
    stale: bool
    # At the pace of the last hour (`usage.pace`): `lasts` to the reset, `runs_out` at `runs_out_at` (epoch s),
    # or `unknown` (too little history, or a stale figure).
    pace: str = "unknown"
    runs_out_at: float | None = None
    # Its recent figures, `[at, used_percent]` oldest first (`core.limit_history`: the last two hours and the one
    # before them), for the usage screen's line of its fill over time.
    points: list[tuple[float, float]] = []


class AccountLimits(msgspec.Struct, omit_defaults=False):
    client: str
    account: str
    plan: str | None
    at: float
    windows: list[Window]


def point_of(limits: Limits) -> limit_history.Point:
    return (
        limits.at,
        limits.primary.used_percent if limits.primary else None,
        limits.secondary.used_percent if limits.secondary else None,
    )


def record(conn: sqlite3.Connection, client: str, limits: Limits) -> None:
    """Keep `limits` unless a newer report of the same client and account is kept already; either way its
    figures join the account's recent history (reports of several sessions arrive out of order)."""
    account = limits.limit_id or "default"
    row = conn.execute("SELECT data FROM usage_limits WHERE client = ? AND account = ?", (client, account)).fetchone()
    kept = _decode(row[0]) if row else None
    history = limit_history.checked(kept.history) if kept is not None else []
    if kept is not None and not history:
        history = [point_of(kept)]  # kept before histories were: its own figure is the first point
    history = limit_history.merged(history, point_of(limits))
    newest = limits if kept is None or limits.at >= kept.at else kept
    newest = msgspec.structs.replace(newest, history=[list(p) for p in history])
    conn.execute(
        "INSERT INTO usage_limits (client, account, data, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (client, account) DO UPDATE SET data = excluded.data, at = excluded.at",
        (client, account, msgspec.json.encode(newest).decode(), newest.at),
    )


def _decode(data: str | bytes) -> Limits | None:
    try:
        return _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _checked(window: LimitWindow | None) -> LimitWindow | None:
    """A kept window as the entry check would have let it in (`core.bounds`): the wrapper's file and the store
    may hold what an older version kept unchecked (a reset at 1e300, a percent of 1e308), or what another
    program wrote into the file, and one such figure must not end every reader."""
    if window is None:
        return None
    used = bounds.percent(window.used_percent)
    if used is None:
        return None
    return LimitWindow(used, bounds.window_minutes(window.window_minutes), bounds.bounded(window.resets_at))


def _stale(window: LimitWindow, at: float, now: float) -> bool:
    if window.resets_at is not None and window.resets_at <= now:
        return True
    return window.window_minutes is not None and now - at > window.window_minutes * 60


def _window_names(client_id: str) -> tuple[str, str]:
    """What the client calls its two windows: its descriptor's names, else the plain ones."""
    client = by_id(client_id)
    return client.limit_windows if client is not None else LIMIT_WINDOWS


def _status_line_file(folder: Path | None) -> list[tuple[str, str, bytes]]:
    """Claude Code's windows as the status-line wrapper last kept them (shim/statusline.py), if it runs."""
    path = (folder if folder is not None else paths.data_dir() / "limits") / "claude.json"
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            return [(CLAUDE.id, "default", f.read(64 * 1024))]
    except OSError:
        return []


def read(conn: sqlite3.Connection, now: float | None = None, folder: Path | None = None) -> list[AccountLimits]:
    """Every client's and account's latest windows, each marked stale when it may no longer hold: Codex's
    from the store, Claude Code's from the status-line wrapper's file (`folder`: its data folder)."""
    now = time.time() if now is None else now
    found = []
    rows = conn.execute("SELECT client, account, data FROM usage_limits ORDER BY client, account").fetchall()
    for client, account, data in [*_status_line_file(folder), *rows]:
        limits = _decode(data)
        if limits is None:
            continue
        if bounds.bounded(limits.at) is None:
            continue  # a report of no believable moment: neither fresh nor stale can be said of it
        checked = (_checked(limits.primary), _checked(limits.secondary))
        latest = (limits.at, *(w.used_percent if w else None for w in checked))
        history = limit_history.merged([*limit_history.checked([latest]), *limit_history.checked(limits.history)], None)
        windows = []
        for side, (name, w) in enumerate(zip(_window_names(client), checked, strict=True), start=1):
            if w is None:
                continue
            stale = _stale(w, limits.at, now)
            paced = pace.UNKNOWN
            points = limit_history.of_window(history, side)
            if not stale:
                paced = pace.pace(points, now, window_minutes=w.window_minutes, resets_at=w.resets_at)
            windows.append(
                Window(
                    name, w.used_percent, w.window_minutes, w.resets_at, stale, paced.verdict, paced.runs_out_at, points
                )
            )
        found.append(AccountLimits(client, account, limits.plan, limits.at, windows))
    return found


def window_label(window: Window) -> str:
    """A window's length as people say it: `5 h`, `7 d` (its name when the length is not reported)."""
    minutes = window.window_minutes
    if minutes is None:
        return {"five_hour": "5 h", "seven_day": "7 d"}.get(window.name, window.name)
    if minutes % 1440 == 0:
        return f"{minutes // 1440} d"
    if minutes % 60 == 0:
        return f"{minutes // 60} h"
    return f"{minutes} min"
