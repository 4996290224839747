"""No value a source can carry raises in a formatter: numbers of any size and type, times out of range, NaN
and infinities, titles with escapes and markup, 100 KB strings. Each front end's text comes out bounded and
harmless for its sink: one line for a bar, no control character for a terminal, no markup for a notification.

The values are what the decoders let through (msgspec decodes an int of four thousand digits into an `int`
field, and a float field takes 1e300), so a row from another machine, a damaged store or an older version's
figures are covered too.
"""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unit_support import a_session  # noqa: E402

from lunavect import store
from lunavect.collector import doctor
from lunavect.core import bounds, times
from lunavect.core.model import Session, State
from lunavect.core.tokens import SessionUsage, Tokens
from lunavect.frontends import rows, table
from lunavect.frontends.bar import formats
from lunavect.listing.attention import summarize_sessions
from lunavect.notify import usage as usage_notes
from lunavect.notify.decide import compose, item_of
from lunavect.notify.kinds import BY_NAME
from lunavect.notify.markup import body_text, title_text
from lunavect.shim.statusline import limits_of
from lunavect.usage import bar, limits, report, warnings
from lunavect.usage.text import usage_brief, usage_line

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BIG = "x" * 100_000
HOSTILE_TEXT = [
    "<b>bold</b> &amp; <a href='https://example.invalid/'>l</a>",
    "#(touch /tmp/x) #[fg=red] #{pane_id} %{F#f00} %{A1:xterm:}",
    "$(touch x) `id`; rm -rf ~ | cat && \\",
    "\x1b]0;title\x07\x1b[2J\r\n\u202eevil\u2028line\x00\x9b",
    BIG,
    "",
]
text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=60))
maybe_text = st.none() | text
# Every number a decoded field may hold: huge ints (msgspec takes 4,000 digits), floats of any size.
ints = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**63, 10**30, 10**400, -(10**400), 1 << 40]),
)
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e300, -1e300, 1.8e12, 1e308, 4102444801.0, -0.0]),
)
numbers = st.one_of(ints, floats, st.booleans(), st.none(), text)
iso_times = st.one_of(
    st.none(),
    text,
    st.sampled_from(["9999-12-31T23:59:59Z", "0001-01-01T00:00:00-23:59", "2026-11-29T14:38:32.771Z", "1e300"]),
    st.datetimes(timezones=st.just(dt.UTC)).map(lambda d: d.isoformat()),
)


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    tokens = st.builds(Tokens, ints, ints, ints, ints)
    spent = st.none() | st.builds(
        SessionUsage,
        model=maybe_text,
        tokens=tokens,
        subagents=tokens,
        context=st.none() | ints,
        context_window=st.none() | ints,
    )
    return a_session(
        draw(text),
        provider=draw(st.sampled_from(["claude", "codex"]) | text),
        title=draw(maybe_text),
        project=draw(maybe_text),
        host=draw(text),
        state=draw(st.sampled_from(list(State))),
        activity=draw(maybe_text),
        since=draw(iso_times),
        updated=draw(iso_times),
        heard=draw(st.none() | iso_times),
        background=draw(st.dictionaries(text, ints, max_size=3)),
        error=draw(maybe_text),
        waiting_for=draw(maybe_text),
        client=draw(maybe_text),
        usage=draw(spent),
    )


def _no_controls(out: str, allowed: str = "") -> None:
    assert not any((ord(c) < 32 or 0x7F <= ord(c) < 0xA0) and c not in allowed for c in out), repr(out[:200])


# The notes are lunavect's own words and numbers (`attention.NOTE_SOURCES`), never outside text.
NOTES = st.lists(st.sampled_from(["codex 5 h 42 % · resets 14:00", "claude 7 d 100 % (old)"]), max_size=2)


@FAST
@given(st.lists(sessions(), max_size=4), NOTES)
def test_every_status_format_gives_one_line_for_any_sessions(found: list[Session], notes: list[str]) -> None:
    summary = summarize_sessions(found, tuple(notes))
    for name, render in formats.RENDERERS.items():
        out = render(summary)
        if name in ("plain", "i3blocks", "polybar", "waybar", "json"):
            assert "\n" not in out, name
        if name == "plain":
            _no_controls(out)


@FAST
@given(st.lists(sessions(), max_size=4), floats)
def test_rows_the_table_and_the_popup_never_raise_and_never_let_a_control_through(found, now) -> None:
    clock = now if isinstance(now, float) and bounds.bounded(now) is not None else 1.8e9
    for session in found:
        rows.state_label(session)
        rows.background_detail(session)
        rows.timer(session, clock)
        rows.ago(session.updated, clock)
        _no_controls(rows.tooltip(session, clock), "\n")
        _no_controls(formats.label(session))
        usage_line(session.usage)
        usage_brief(session.usage)
    _no_controls(table.render(found, width=120), "\n")


@FAST
@given(numbers)
def test_a_time_of_any_value_is_a_date_or_none(value: object) -> None:
    for convert in (times.local, times.utc, times.iso):
        convert(value)
    assert isinstance(times.local_text(value, "%Y-%m-%d %H:%M"), str)
    times.epoch(value)
    times.elapsed(value)  # type: ignore[arg-type]
    seconds = bounds.bounded(value)
    assert seconds is None or bounds.EARLIEST <= seconds <= bounds.LATEST
    used = bounds.percent(value)
    assert used is None or 0 <= used <= 100
    assert 0 <= bounds.count(value) < bounds.MAX_COUNT
    minutes = bounds.window_minutes(value)
    assert minutes is None or 1 <= minutes <= bounds.MAX_WINDOW_MINUTES


window = st.fixed_dictionaries({}, optional={"used_percent": numbers, "window_minutes": numbers, "resets_at": numbers})
stored_limits = st.fixed_dictionaries(
    {"at": numbers}, optional={"limit_id": maybe_text, "plan": maybe_text, "primary": window, "secondary": window}
)


def _json(value: object) -> str:
    """JSON as another program might write it: Python's own, NaN and Infinity included."""
    return json.dumps(value)


@FAST
@given(stored_limits, stored_limits, text, st.floats(min_value=0, max_value=4e9))
def test_stored_figures_of_any_value_read_bounded_and_format_everywhere(tmp_path_factory, claude, codex, account, now):
    folder = tmp_path_factory.mktemp("limits")
    (folder / "claude.json").write_text(_json(claude))
    conn = store.connect(folder / "s.sqlite3")
    try:
        with conn:
            conn.execute(
                "INSERT INTO usage_limits (client, account, data, at) VALUES ('codex', ?, ?, 0)",
                (account, _json(codex)),
            )
        found = limits.read(conn, now, folder)
        for each in found:
            assert bounds.bounded(each.at) is not None
            for w in each.windows:
                assert 0 <= w.used_percent <= 100
                assert w.resets_at is None or bounds.bounded(w.resets_at) is not None
        _no_controls(" ".join(report.limit_lines(found, now)))
        bar.limits_note(conn, now)
        for warning in warnings.due(conn, 50.0, now, folder):
            note = usage_notes.note_of(warning)
            title_text(note.title)
            assert "<" not in body_text(note.body, markup=True)
    finally:
        conn.close()


@FAST
@given(st.lists(st.tuples(text, ints, ints, st.none() | st.floats(allow_nan=True, allow_infinity=True)), max_size=4))
def test_the_usage_report_renders_any_rows(found) -> None:
    made = [report.UsageRow(key, Tokens(a, b, 0, 0), cost) for key, a, b, cost in found]
    out = report.render(
        report.Report(
            since="x", by="session", rows=made, total=report.UsageRow("total", Tokens(), None), limits=[], prices=None
        )
    )
    _no_controls(out, "\n")


@FAST
@given(st.lists(sessions(), min_size=1, max_size=4), st.sampled_from(sorted(BY_NAME)))
def test_a_notification_of_any_sessions_is_plain_bounded_text(found: list[Session], kind: str) -> None:
    note = compose([item_of(BY_NAME[kind], s) for s in found])
    title, body = title_text(note.title), body_text(note.body, markup=True)
    assert len(title) <= 200 and "\n" not in title
    assert "<" not in body and ">" not in body
    _no_controls(title)
    _no_controls(body, "\n")
    json.dumps(note.as_dict())


@FAST
@given(numbers, numbers, text)
def test_doctor_reports_any_recorded_failure(at: object, count: object, error: str) -> None:
    collector = {
        "running": False,
        "pid": None,
        "last_tick_age_s": None,
        "last_error": {"where": error, "error": error, "at": at},
        "loop_failures": [{"loop": "notifier", "count": count, "error": error, "at": at}],
    }
    report_ = doctor.Report(collector=collector, store={"ok": False, "path": error})
    doctor.lines(report_)


status_window = st.one_of(
    numbers,
    st.fixed_dictionaries({}, optional={"used_percentage": numbers, "resets_at": numbers}),
)


@FAST
@given(st.fixed_dictionaries({}, optional={"five_hour": status_window, "seven_day": status_window}) | numbers)
def test_the_status_line_wrapper_keeps_only_bounded_figures_of_any_input(rate_limits: object) -> None:
    kept = limits_of(json.dumps({"rate_limits": rate_limits}).encode(), 1.8e9)
    for side in ("primary", "secondary"):
        entry = (kept or {}).get(side)
        if entry is not None:
            assert 0 <= entry["used_percent"] <= 100
            assert bounds.bounded(entry.get("resets_at", 0)) is not None
