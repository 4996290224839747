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

import msgspec

from lunavect import paths
from lunavect.core import bounds
from lunavect.core.clients import CLAUDE, LIMIT_WINDOWS, by_id
from lunavect.files.tail import open_regular


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


_decoder = msgspec.json.Decoder(Limits)


class Window(msgspec.Struct, omit_defaults=False):
    """One window as `lunavect usage --json` prints it."""

    name: str  # "primary" | "secondary" (Codex), "five_hour" | "seven_day" (Claude Code)
    used_percent: float
    window_minutes: int | None
    resets_at: float | None
    # The report is older than the window or its reset passed: the figure may no longer hold.
    stale: bool


class AccountLimits(msgspec.Struct, omit_defaults=False):
    client: str
    account: str
    plan: str | None
    at: float
    windows: list[Window]


def record(conn: sqlite3.Connection, client: str, limits: Limits) -> None:
    """Keep `limits` unless a newer report of the same client and account is kept already."""
    account = limits.limit_id or "default"
    conn.execute(
        "INSERT INTO usage_limits (client, account, data, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (client, account) DO UPDATE SET data = excluded.data, at = excluded.at "
        "WHERE excluded.at >= usage_limits.at",
        (client, account, msgspec.json.encode(limits).decode(), limits.at),
    )


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
        try:
            limits = _decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if bounds.bounded(limits.at) is None:
            continue  # a report of no believable moment: neither fresh nor stale can be said of it
        windows = [
            Window(name, w.used_percent, w.window_minutes, w.resets_at, _stale(w, limits.at, now))
            for name, w in zip(
                _window_names(client),
                (_checked(limits.primary), _checked(limits.secondary)),
                strict=True,
            )
            if w is not None
        ]
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
