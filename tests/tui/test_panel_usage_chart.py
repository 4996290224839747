"""The `u` screen: tokens per day by client as bars (the widest day the full width, each client its colour and
name in the legend, an empty day an empty bar) and each rate-limit window's fill, in a dark and a light theme.

`pytest tests/tui/test_panel_usage_chart.py --snapshot-update` accepts a deliberate change of look."""

from __future__ import annotations

import time

import pytest
import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect.core.tokens import Tokens
from lunavect.frontends.tui import preferences
from lunavect.frontends.tui.usage_screen import BAR, UsageScreen
from lunavect.usage import ledger, limits
from lunavect.usage.limits import Limits, LimitWindow

SIZE = (110, 40)
DAY = 86400
# (session key, days back, tokens): Claude Code 2M three days back, the widest day; Codex 1.5M two days back.
USED = [
    ("claude:u1", 0, Tokens(200_000, 100_000, 800_000, 100_000)),  # 1.2M today
    ("codex:c1", 0, Tokens(300_000, 100_000, 200_000, 0)),  # and 600k
    ("claude:u1", 1, Tokens(0, 0, 800_000, 0)),
    ("codex:c1", 1, Tokens(300_000, 0, 0, 0)),
    ("codex:c1", 2, Tokens(1_000_000, 0, 500_000, 0)),
    ("claude:u2", 3, Tokens(0, 0, 2_000_000, 0)),
    ("gemini:g1", 4, Tokens(150_000, 50_000, 0, 0)),
]


@pytest.fixture
def utc(monkeypatch):
    """Days are the reader's local days: the test's are UTC's."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def seed_usage(conn) -> None:
    seed.write(conn, [seed.session("u1", "ready", updated=30)])
    for key, back, tokens in USED:
        delta = ledger.Delta(ledger.quarter_of(seed.NOW - back * DAY, seed.NOW), "m", False, tokens)
        ledger.record(conn, f"/files/{key}", key, [delta])
    resets = seed.NOW + 3600
    for back, used in ((100 * 60, 10.0), (60 * 60, 25.0), (60, 42.0)):  # its 5 h window filling over the hours
        limits.record(conn, "codex", Limits(at=seed.NOW - back, primary=LimitWindow(used, 300, resets)))
    limits.record(
        conn, "codex", Limits(at=seed.NOW - 30, primary=LimitWindow(42.0, 300, resets), secondary=LimitWindow(8, 10080))
    )
    conn.commit()


@pilot_test
async def test_u_opens_the_bars_the_widest_day_full_and_esc_closes_them(conn, make_app, utc):
    seed_usage(conn)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen))
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        days = {day.day: day for day in screen.days}
        assert len(days) == 14 and max(days) == "2026-11-12"
        assert days["2026-11-12"].by_client == {"claude": 1_200_000, "codex": 600_000}  # the clients' order
        assert days["2026-11-09"].by_client == {"claude": 2_000_000} and days["2026-11-02"].total == 0
        text = screen.query_one("#usage-days").render()
        lines = {line.split("  ")[0][:9]: line for line in str(text).splitlines()}
        assert lines["Mon 11-09"].count("█") == BAR and lines["Mon 11-09"].endswith(" 2.0M")
        assert lines["Thu 11-12"].count("█") == round(1.2 / 2 * BAR) + round(0.6 / 2 * BAR)
        assert lines["Sun 11-08"].count("█") == round(0.2 / 2 * BAR) and lines["Mon 11-02"].endswith(" —")
        legend = str(screen.query_one("#usage-legend").render())
        assert "Claude Code" in legend and "Codex" in legend and "Gemini CLI" in legend and "Copilot" not in legend
        windows = str(screen.query_one("#usage-limits").render())
        assert "codex\n" in windows and "42 % · resets 10:30" in windows and "8 %" in windows
        assert windows.splitlines()[1].count("█") == round(0.42 * 40)
        # Its fill over the last two hours, a cell each 3 minutes, up to its highest figure: blank before the first
        # report 100 minutes ago, then 10 % (▂), 25 % (▅) from an hour ago, 42 % (█) in the last minute.
        fill = windows.splitlines()[2][9:49]
        assert fill == " " * 6 + "▂" * 13 + "▅" * 20 + "█" and windows.splitlines()[2].endswith("2 h: 10 % → 42 %")
        assert "7 d" in windows.splitlines()[3]  # the 7 d window's one figure, in the last cell
        assert windows.splitlines()[4][9:49] == " " * 39 + "█"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, UsageScreen))
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen))
        await pilot.press("u")  # u closes it too
        await wait_for(pilot, lambda: not isinstance(app.screen, UsageScreen))


def test_each_client_has_its_own_colour() -> None:
    from lunavect.core import clients
    from lunavect.usage.chart import COLOURS, colour

    shown = [colour(client.id) for client in clients.every()]
    assert len(set(shown)) == len(shown) and set(shown) <= set(COLOURS)


def test_the_usage_screen(conn, make_app, snap_compare, utc):
    seed_usage(conn)
    assert snap_compare(make_app(), terminal_size=SIZE, press=["u"])


def test_the_usage_screen_in_a_light_theme(conn, make_app, snap_compare, utc):
    seed_usage(conn)
    preferences.keep_theme(conn, "textual-light")
    assert snap_compare(make_app(), terminal_size=SIZE, press=["u"])
