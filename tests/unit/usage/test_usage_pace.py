"""How long a rate-limit window lasts at the pace of the last hour, on recorded series of a window's figures
with the clock under the test's control: the pure verdict (`usage.pace`), the bounded history it is read from
(`core.limit_history`), the status-line wrapper and the store keeping that history, and the words beside each
window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect import store
from lunavect.core import limit_history
from lunavect.shim import statusline
from lunavect.usage import limits, pace
from lunavect.usage.limits import Limits, LimitWindow

NOW = 1_800_000_000.0
H = 3600.0
MIN = 60.0


def series(*pairs: tuple[float, float]) -> list[tuple[float, float]]:
    """`(minutes before NOW, used percent)` pairs as recorded points."""
    return [(NOW - minutes * MIN, used) for minutes, used in pairs]


# A Claude Code 5 h window as its status line reported it at each redraw while a person worked (integer percents,
# several redraws per figure), its reset 3 h away: 30 points an hour.
CLIMB = series((70, 15), (60, 20), (55, 22), (50, 25), (40, 30), (30, 35), (20, 40), (12, 44), (10, 45), (0, 50))


def test_a_steady_climb_runs_out_before_its_reset():
    verdict = pace.pace(CLIMB, NOW, window_minutes=300, resets_at=NOW + 3 * H)
    assert verdict.verdict == "runs_out"
    assert verdict.runs_out_at == pytest.approx(NOW + 50 / 30 * H)  # 50 left at 30 an hour: 1 h 40 m
    assert pace.words(verdict.verdict, verdict.runs_out_at, NOW) == "runs out in 1 h 40 m"


def test_a_climb_whose_end_lies_past_the_reset_lasts():
    verdict = pace.pace(CLIMB, NOW, window_minutes=300, resets_at=NOW + 90 * MIN)
    assert verdict == pace.Pace("lasts")
    assert pace.words("lasts", None, NOW) == "lasts to reset"


def test_only_the_last_hour_counts():
    # Fast two hours ago, then nothing since: at the pace of the last hour it lasts.
    early = series((180, 0), (150, 40), (120, 70))
    assert pace.pace(early, NOW, window_minutes=300, resets_at=NOW + 2 * H).verdict == "lasts"
    # Slow for hours, fast in the last hour: the last hour decides (70 → 85 in an hour, 15 left).
    late = series((240, 60), (180, 65), (120, 68), (60, 70), (0, 85))
    verdict = pace.pace(late, NOW, window_minutes=600, resets_at=NOW + 5 * H)
    assert verdict.verdict == "runs_out" and verdict.runs_out_at == pytest.approx(NOW + H)


def test_a_window_that_began_within_the_hour_counts_from_nothing():
    # The 5 h window began 40 min ago (its reset is 4 h 20 m away); 40 % since: 60 an hour, 60 left.
    verdict = pace.pace(series((30, 10), (0, 40)), NOW, window_minutes=300, resets_at=NOW + 260 * MIN)
    assert verdict.verdict == "runs_out" and verdict.runs_out_at == pytest.approx(NOW + H)


def test_the_previous_windows_figures_do_not_count():
    # 95 % before the reset 20 min ago, 10 % since: the new window began 20 min ago, 30 an hour.
    points = series((90, 80), (30, 95), (10, 5), (0, 10))
    verdict = pace.pace(points, NOW, window_minutes=300, resets_at=NOW + 280 * MIN)
    assert verdict.verdict == "runs_out" and verdict.runs_out_at == pytest.approx(NOW + 90 / 30 * H)
    # Without a reset time, the fall of the figure marks the new window: paced from its first report.
    assert pace.pace(series((90, 80), (30, 3), (0, 10)), NOW).runs_out_at == pytest.approx(NOW + 90 / 14 * H)


def test_a_first_report_within_the_hour_paces_once_it_covers_a_quarter_hour():
    # The window began 3 h ago but lunavect heard of it only 30 min ago: 10 → 25 in 30 min, 30 an hour.
    points = series((30, 10), (0, 25))
    verdict = pace.pace(points, NOW, window_minutes=300, resets_at=NOW + 2 * H + 59 * MIN)
    assert verdict.verdict == "runs_out" and verdict.runs_out_at == pytest.approx(NOW + 2.5 * H)


@pytest.mark.parametrize(
    "points",
    [
        [],
        series((0, 40)),  # one report
        series((5, 38), (0, 40)),  # five minutes of history
        series((-10, 40)),  # a report from after now is not known yet
    ],
    ids=["none", "one", "five-minutes", "future"],
)
def test_too_few_points_is_unknown(points):
    verdict = pace.pace(points, NOW, window_minutes=300, resets_at=NOW + 2 * H)
    assert verdict == pace.UNKNOWN
    assert pace.words(verdict.verdict, verdict.runs_out_at, NOW) == "pace unknown"


def test_a_window_that_began_moments_ago_is_unknown():
    assert pace.pace(series((4, 30)), NOW, window_minutes=300, resets_at=NOW + 296 * MIN) == pace.UNKNOWN


def test_a_reset_that_passed_is_unknown_and_a_full_window_is_used_up():
    assert pace.pace(CLIMB, NOW, window_minutes=300, resets_at=NOW - 1) == pace.UNKNOWN
    full = series((60, 70), (0, 100))
    verdict = pace.pace(full, NOW, window_minutes=300, resets_at=NOW + H)
    assert verdict == pace.Pace("runs_out", NOW)
    assert pace.words(verdict.verdict, verdict.runs_out_at, NOW) == "used up"


def test_reports_in_any_order_give_the_same_verdict():
    assert pace.pace(list(reversed(CLIMB)), NOW, window_minutes=300, resets_at=NOW + 3 * H) == pace.pace(
        CLIMB, NOW, window_minutes=300, resets_at=NOW + 3 * H
    )


# -- the history it is read from ----------------------------------------------------------------------------


def test_the_history_keeps_what_is_new_within_two_hours_and_the_figure_that_held_before():
    history: list[limit_history.Point] = []
    for minutes in range(300, -1, -1):  # a redraw a minute for five hours, the figure rising every ten
        history = limit_history.merged(history, (NOW - minutes * MIN, float((300 - minutes) // 10), 8.0))
    assert len(history) < 20  # a point a redraw would be 301: only changes are kept
    assert history[-1] == (NOW, 30.0, 8.0)
    assert history[0][0] <= NOW - limit_history.KEEP_S < history[1][0]  # the figure two hours ago is known
    for n in range(1000):
        history = limit_history.merged(history, (NOW + n, float(n % 2), None))
    assert len(history) == limit_history.MAX_POINTS


def test_a_damaged_history_loses_its_bad_points_only():
    raw = [[NOW, 40, 8], [1e300, 40, 8], ["x", 1, 2], [NOW - 60, 1e308, None], [NOW - 120, 30, None], "x", [NOW]]
    assert limit_history.checked(raw) == [(NOW - 120, 30.0, None), (NOW, 40.0, 8.0)]
    assert limit_history.checked({"a": 1}) == [] and limit_history.checked(None) == []


def test_the_status_line_wrapper_keeps_the_recent_figures_numbers_only(tmp_path: Path):
    folder = str(tmp_path / "limits")
    for minutes, used in ((60, 20), (59, 20), (30, 35), (0, 50)):
        five_hour = {"used_percentage": used, "resets_at": NOW + 3 * H}
        data = json.dumps({"session_id": "s", "cwd": "/p", "rate_limits": {"five_hour": five_hour}}).encode()
        statusline.record(data, NOW - minutes * MIN, folder)
    kept = json.loads((tmp_path / "limits" / "claude.json").read_text())
    assert kept["history"] == [[NOW - 60 * MIN, 20, None], [NOW - 30 * MIN, 35, None], [NOW, 50, None]]
    conn = store.connect(tmp_path / "s.sqlite3")
    [claude] = limits.read(conn, now=NOW, folder=tmp_path / "limits")
    [five_hour] = claude.windows
    assert (five_hour.pace, five_hour.runs_out_at) == ("runs_out", pytest.approx(NOW + H + 40 * MIN))
    conn.close()


def test_the_store_keeps_codexs_recent_figures_from_reports_in_any_order(tmp_path: Path):
    conn = store.connect(tmp_path / "s.sqlite3")
    resets = NOW + 4 * H
    with conn:
        for minutes, used in ((0, 60.0), (60, 30.0), (30, 45.0)):  # the newest first, as two rollouts may give them
            limits.record(conn, "codex", Limits(at=NOW - minutes * MIN, primary=LimitWindow(used, 300, resets)))
    [codex] = limits.read(conn, now=NOW)
    [primary] = codex.windows
    assert (codex.at, primary.used_percent) == (NOW, 60.0)  # the newest report is the figure
    assert (primary.pace, primary.runs_out_at) == ("runs_out", pytest.approx(NOW + 80 * MIN))
    stored = json.loads(conn.execute("SELECT data FROM usage_limits").fetchone()[0])
    assert stored["history"] == [[NOW - H, 30.0, None], [NOW - 30 * MIN, 45.0, None], [NOW, 60.0, None]]
    assert set(stored) == {"at", "primary", "history"}  # numbers only
    conn.close()


def test_a_window_without_a_reset_time_lasts_past_its_length():
    """issue 42, item 10: a denormal rise projected its end near 1e305 s away: "runs out in 9999 d"."""
    barely = series((60, 0.0), (0, 1e-300))  # a rise of next to nothing: its end about 3.6e305 s away
    for minutes in (300, None):
        verdict = pace.pace(barely, NOW, window_minutes=minutes)
        assert verdict == pace.Pace("lasts")
        assert pace.words(verdict.verdict, verdict.runs_out_at, NOW) == "lasts to reset"
    slow = series((60, 50.0), (0, 51.0))  # 49 left at 1 an hour: two days, past a 5 h window's end
    assert pace.pace(slow, NOW, window_minutes=300).verdict == "lasts"
    assert pace.pace(slow, NOW, window_minutes=7 * 24 * 60).runs_out_at == pytest.approx(NOW + 49 * H)
