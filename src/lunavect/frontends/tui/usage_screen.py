"""The `u` screen: tokens per day for the last two weeks as bars, each client its own colour, and each
rate-limit window's fill as a bar with its reset and pace: a look instead of `lunavect usage`'s table.

Read once as it opens (the store's history and windows: counts only); Esc or `u` closes it. The colours
(`usage.chart`, the web page's too) are mid-tone, readable on a dark and a light theme alike, and the legend names each client beside its colour.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lunavect.core import clients
from lunavect.core.limit_history import KEEP_S
from lunavect.core.terminal_text import clean
from lunavect.core.times import local_text
from lunavect.usage import chart, limits, report
from lunavect.usage.chart import colour
from lunavect.usage.text import count

BAR = 52  # cells of the widest day's bar
LABEL = 10  # `Mon 11-30 `
WINDOW_BAR = 40  # cells of a window's 100 %, and of its last two hours
SPAN_S = KEEP_S  # the history a window keeps
LEVELS = "▁▂▃▄▅▆▇█"


def day_bars(days: list[chart.Day]) -> Text:
    """A bar a day, its clients' parts side by side (at least one cell for any client that used tokens)."""
    text = Text()
    widest = max((day.total for day in days), default=0)
    for day in days:
        text.append(local_day(day.day).ljust(LABEL), style="dim" if not day.total else "")
        for client_id, tokens in day.by_client.items():
            cells = max(1, round(tokens / widest * BAR)) if widest else 0
            text.append("█" * cells, style=colour(client_id))
        text.append(f" {count(day.total)}" if day.total else " —", style="bold" if day.total else "dim")
        text.append("\n")
    return text


def local_day(day: str) -> str:
    """`2026-11-30` as `Mon 11-30`."""
    try:
        return dt.date.fromisoformat(day).strftime("%a %m-%d")
    except ValueError:
        return day


def legend(days: list[chart.Day]) -> Text:
    used = {client_id for day in days for client_id in day.by_client}
    text = Text()
    for client in clients.every():
        if client.id in used:
            text.append("██ ", style=colour(client.id)).append(f"{client.name}   ")
    for other in sorted(used - {client.id for client in clients.every()}):
        text.append("██ ", style=colour(other)).append(f"{clean(other, limit=40)}   ")
    return text


def window_bars(accounts: list[limits.AccountLimits], now: float) -> Text:
    """Each window's fill out of 100 %, then what `lunavect usage` says of it (reset, pace; or that it may be old)."""
    text = Text()
    for account in accounts:
        if not account.windows:
            continue
        text.append(f"{report.account_label(account)}\n", style="bold")
        for window in account.windows:
            filled = round(min(max(window.used_percent, 0.0), 100.0) / 100 * WINDOW_BAR)
            text.append(f"  {limits.window_label(window):>6} ")
            text.append("█" * filled, style="dim" if window.stale else colour(account.client))
            text.append("░" * (WINDOW_BAR - filled), style="dim")
            text.append(f"  {report.window_words(account, window, now)}\n")
            line, low, high = fill_line(window.points, now)
            if line.strip():
                text.append(f"  {'':>6} ").append(line, style="dim" if window.stale else colour(account.client))
                text.append(f"  the last 2 h: {low:.0f} % → {high:.0f} %\n", style="dim")
    return text


def fill_line(points: list[tuple[float, float]], now: float) -> tuple[str, float, float]:
    """A window's fill over the last two hours, a cell each three minutes (the figure that held at its end: blank
    before the first one), ▁ to █ from nothing to its highest figure then: how fast it filled, at a glance. With
    the lowest and highest figures shown."""
    held_at = []
    for i in range(WINDOW_BAR):
        end = now - SPAN_S + (i + 1) * SPAN_S / WINDOW_BAR
        held = [used for at, used in points if at <= end]
        held_at.append(held[-1] if held else None)
    shown = [used for used in held_at if used is not None]
    if not shown:
        return "", 0.0, 0.0
    high = max(shown) or 1.0
    cells = [" " if used is None else LEVELS[min(len(LEVELS) - 1, int(used / high * len(LEVELS)))] for used in held_at]
    return "".join(cells), min(shown), max(shown)


class UsageScreen(ModalScreen[None]):
    """Tokens per day by client and the rate-limit windows; Esc or u closes it."""

    BINDINGS = [Binding("escape,u", "dismiss(None)", "Close")]

    def __init__(self, conn: sqlite3.Connection, now: float) -> None:
        super().__init__()
        self.days = chart.days_by_client(conn, now)
        self.accounts = limits.read(conn, now)
        self.now = now

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="usage"):
            yield Label(f"Tokens per day, the last {len(self.days)} days", id="usage-title")
            if any(day.total for day in self.days):
                yield Static(legend(self.days), id="usage-legend")
                yield Static(day_bars(self.days), id="usage-days")
            else:
                yield Static("No tokens in these days.", id="usage-days")
            yield Label("Rate-limit windows", id="usage-limits-title")
            windows = window_bars(self.accounts, self.now)
            yield Static(windows if windows.plain else "No window reported.", id="usage-limits")
            since = local_text(self.now, "%H:%M", missing="")
            yield Label(f"As of {since} · `lunavect usage` for the table · Esc closes", id="usage-hint")
