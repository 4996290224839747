"""Outside text and numbers at the terminal's and the reports' edge: `lunavect usage`, `notifications status`,
`doctor` and a row's detail show an escape sequence as its visible escape, and a figure no session reaches
as `?` or nothing, never a traceback."""

from __future__ import annotations

from unit_support import a_session  # noqa: E402

from lunavect.collector import doctor
from lunavect.core.model import State
from lunavect.core.times import elapsed
from lunavect.core.tokens import SessionUsage, Tokens
from lunavect.frontends import rows
from lunavect.usage import report
from lunavect.usage.limits import AccountLimits, Window
from lunavect.usage.text import count, usage_line

ESCAPE = "\x1b]0;owned\x07\x1b[2J"


def test_the_usage_table_shows_a_project_s_escape_sequence_harmlessly() -> None:
    made = report.Report(
        since="2026-11-29T00:00:00+00:00",
        by="project",
        rows=[report.UsageRow(f"proj{ESCAPE}", Tokens(10, 5), None)],
        total=report.UsageRow("total", Tokens(10, 5), None),
        limits=[AccountLimits("codex", f"team{ESCAPE}", None, 1.8e9, [Window("primary", 42.0, 300, None, False)])],
        prices=None,
    )
    out = report.render(made, now=1.8e9)
    assert "\x1b" not in out and "\x07" not in out
    assert "proj\\x1b]0;owned\\x07" in out and "codex/team\\x1b" in out


def test_figures_no_session_reaches_show_as_a_question_mark_or_nothing() -> None:
    assert count(10**400) == "?" and count(-(10**400)) == "?" and count(28_800) == "28.8k"
    usage = SessionUsage(tokens=Tokens(10**400, 1, 1, 1), context=10**400, context_window=1)
    assert usage.context_percent is None
    assert usage_line(usage).startswith("Tokens ? (in ? · out 1")
    assert SessionUsage(context=50, context_window=-100).context_percent is None
    assert elapsed(10**400) == "0s" and elapsed(float("nan")) == "0s" and elapsed(float("inf")) == "0s"


def test_a_row_s_background_kinds_are_shown_harmlessly() -> None:
    session = a_session(state=State.WORKING, background={ESCAPE: 2})
    assert "\x1b" not in rows.tooltip(session, 1.8e9)


def test_doctor_reports_a_damaged_failure_record() -> None:
    collector = {
        "running": False,
        "pid": None,
        "last_tick_age_s": None,
        "last_error": {"where": "tick", "error": "boom", "at": "not a time"},
        "loop_failures": [{"loop": "notifier", "count": 1, "error": "boom", "at": 1e300}],
    }
    out = doctor.lines(doctor.Report(collector=collector, store={"ok": False, "path": "/x"}))
    assert "  last error: tick: boom (never)" in out
    assert "  notifier: failed 1 time(s), went on; last never" in out
