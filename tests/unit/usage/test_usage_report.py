"""`lunavect usage`: the history grouped by day, project, model and session from the store, with estimates
that name their table, can be turned off, and rate-limit windows that say when they are old."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import msgspec
import pytest
from unit_support import a_session

from lunavect import store
from lunavect.collector import tick
from lunavect.core.tokens import Tokens
from lunavect.listing.names import names
from lunavect.usage import ledger, limits, prices, report
from lunavect.usage.limits import Limits, LimitWindow

NOW = dt.datetime(2026, 11, 30, 12, 0).timestamp()
DAY = 86400


@pytest.fixture
def conn(tmp_path: Path):
    c = store.connect(tmp_path / "s.sqlite3")
    yield c
    c.close()


def add(conn, path: str, key: str, at: float, model: str, tokens: Tokens, subagent: bool = False) -> None:
    deltas = ledger.Deltas()
    deltas.add(ledger.quarter_of(at, at), model, subagent, tokens)
    with conn:
        ledger.record(conn, path, key, deltas)


def snapshot(conn, key: str, project: str, title: str) -> None:
    data = msgspec.json.encode({"id": key, "project": project, "title": title}).decode()
    with conn:
        conn.execute("INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, 'idle', 1, ?, 0)", (key, data))


def fill(conn) -> None:
    add(conn, "/a.jsonl", "claude:a", NOW - 3600, "claude-sonnet-4-5-20250929", Tokens(1_000_000, 0, 0, 0))
    add(conn, "/a.jsonl", "claude:a", NOW - 3600, "claude-sonnet-4-5-20250929", Tokens(0, 1_000_000, 0, 0))
    add(conn, "/b.jsonl", "codex:b", NOW - 2 * DAY, "gpt-5-codex", Tokens(0, 0, 2_000_000, 0))
    add(conn, "/c.jsonl", "claude:c", NOW - 40 * DAY, "claude-sonnet-4-5", Tokens(5, 5, 5, 5))
    add(conn, "/d.jsonl", "claude:d", NOW - DAY, "some-new-model", Tokens(7, 0, 0, 0))
    snapshot(conn, "claude:a", "alpha", "Fix the build")
    snapshot(conn, "codex:b", "beta", "Port it")


def test_grouped_by_model_with_an_estimate_from_the_dated_price_data(conn) -> None:
    fill(conn)
    result = report.build(conn, report.parse_since("7d", NOW), "model", NOW, names=names)
    by_key = {row.key: row for row in result.rows}
    assert set(by_key) == {"claude-sonnet-4-5-20250929", "gpt-5-codex", "some-new-model"}
    assert by_key["claude-sonnet-4-5-20250929"].tokens == Tokens(1_000_000, 1_000_000, 0, 0)
    assert by_key["claude-sonnet-4-5-20250929"].cost == pytest.approx(3.0 + 15.0)
    assert by_key["gpt-5-codex"].cost == pytest.approx(2 * 0.125)
    assert by_key["some-new-model"].cost is None  # not in the table: no guess
    assert result.total.cost == pytest.approx(18.25) and result.total.cost_partial
    assert result.prices == prices.about() and result.prices["date"]
    assert result.unpriced == ["some-new-model"]
    text = report.render(result, NOW)
    assert "$18.25+" in text and "estimates" in text and prices.about()["date"] in text
    assert "genai-prices" in text and "No price for: some-new-model." in text


def test_grouped_by_day_project_and_session(conn) -> None:
    fill(conn)
    since = report.parse_since("7d", NOW)
    days = report.build(conn, since, "day", NOW, names=names)
    assert [row.key for row in days.rows] == sorted(
        dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d") for t in (NOW - 2 * DAY, NOW - DAY, NOW - 3600)
    )
    projects = {row.key: row.tokens for row in report.build(conn, since, "project", NOW, names=names).rows}
    assert projects == {
        "alpha": Tokens(1_000_000, 1_000_000, 0, 0),
        "beta": Tokens(0, 0, 2_000_000, 0),
        "(no project)": Tokens(7, 0, 0, 0),
    }
    sessions = [row.key for row in report.build(conn, since, "session", NOW, names=names).rows]
    assert sessions == ["claude:a Fix the build", "codex:b Port it", "claude:d"]
    # 40 days back is outside 7d and inside 60d.
    assert report.build(conn, report.parse_since("60d", NOW), "model", NOW, names=names).total.tokens.input == 1_000_012


def test_grouped_by_client_by_its_name(conn) -> None:
    fill(conn)
    add(conn, "/e.jsonl", "gemini:e", NOW - DAY, "gemini-2.5-pro", Tokens(3, 0, 0, 0))
    add(conn, "/f.jsonl", "elsewhere:f", NOW - DAY, "m", Tokens(2, 0, 0, 0))  # another host's newer client
    add(conn, "/g.jsonl", "nocolon", NOW - DAY, "m", Tokens(1, 0, 0, 0))
    result = report.build(conn, report.parse_since("7d", NOW), "client", NOW, names=names)
    assert {row.key: row.tokens for row in result.rows} == {
        "Claude Code": Tokens(1_000_007, 1_000_000, 0, 0),
        "Codex": Tokens(0, 0, 2_000_000, 0),
        "Gemini CLI": Tokens(3, 0, 0, 0),
        "elsewhere": Tokens(2, 0, 0, 0),
        "(unknown client)": Tokens(1, 0, 0, 0),
    }
    assert [row.key for row in result.rows][:3] == ["Claude Code", "Codex", "Gemini CLI"]  # the most tokens first
    # Each client's cost is its models' at their own prices: Gemini's is known, "m" and "some-new-model" not.
    by_key = {row.key: row for row in result.rows}
    assert by_key["Gemini CLI"].cost == pytest.approx(3 * 1.25 / 1_000_000) and not by_key["Gemini CLI"].cost_partial
    assert by_key["Claude Code"].cost_partial and by_key["elsewhere"].cost is None
    assert "Claude Code" in report.render(result, NOW)


def test_totals_read_while_the_history_is_still_being_read_say_so(conn) -> None:
    """A first start lists large transcripts from a glance and counts their tokens at their whole read, later:
    a report in between says its totals are not whole yet, with the collector's progress."""
    fill(conn)
    since = report.parse_since("7d", NOW)
    assert report.build(conn, since, "day", NOW, names=names).reading is None
    with conn:
        store.set_collector_value(conn, tick.READING_KEY, "3 of 10")
    result = report.build(conn, since, "day", NOW, names=names)
    assert result.reading == "3 of 10" and msgspec.json.decode(msgspec.json.encode(result))["reading"] == "3 of 10"
    assert "Still reading the history (3 of 10 files): these totals are not whole yet." in report.render(result, NOW)
    with conn:
        store.set_collector_value(conn, tick.READING_KEY, "")  # what the collector writes once it has read all
    assert report.build(conn, since, "day", NOW, names=names).reading is None


def test_estimates_turned_off_are_gone_from_text_and_json(conn) -> None:
    fill(conn)
    prices.set_enabled(conn, False)
    result = report.build(conn, report.parse_since("7d", NOW), "model", NOW, costs=prices.enabled(conn), names=names)
    assert result.prices is None and all(row.cost is None for row in result.rows)
    assert "est. cost" not in report.render(result, NOW) and "$" not in report.render(result, NOW)
    prices.set_enabled(conn, True)
    assert prices.enabled(conn)


def test_rate_limits_newest_report_wins_and_old_ones_say_so(conn) -> None:
    with conn:
        limits.record(conn, "codex", Limits(at=NOW - 60, limit_id="codex", primary=LimitWindow(42.0, 300, NOW + 3600)))
        limits.record(conn, "codex", Limits(at=NOW - 600, limit_id="codex", primary=LimitWindow(10.0, 300, NOW + 60)))
    [account] = limits.read(conn, NOW)
    assert [(w.name, w.used_percent, w.stale) for w in account.windows] == [("primary", 42.0, False)]
    line = report.limit_lines([account], NOW)[0]
    assert line.startswith("codex: 5 h 42 % · resets ")
    [later] = limits.read(conn, NOW + 2 * 3600)  # its reset has passed
    assert later.windows[0].stale
    assert "may be old" in report.limit_lines([later], NOW + 2 * 3600)[0]


def test_a_report_without_windows_makes_no_line_in_usage_or_on_the_web_page(conn) -> None:
    """Codex answered without rate-limit figures: no `codex:` line with nothing after it, anywhere."""
    from lunavect.frontends.web import document

    with conn:
        limits.record(conn, "codex", Limits(at=NOW - 60, limit_id="codex"))
    [account] = limits.read(conn, NOW)
    assert account.windows == []
    assert report.limit_lines([account], NOW) == []
    assert "Limits" not in report.render(report.build(conn, NOW - 86400, "model", NOW, names=names), NOW)
    assert msgspec.json.decode(document.read(conn, NOW)[1])["limits"] == []


def test_since_must_be_a_duration() -> None:
    assert report.parse_since("12h", NOW) == NOW - 12 * 3600
    assert report.parse_since("yesterday", NOW) is None
    assert report.parse_since("7", NOW) is None


def test_status_bars_show_the_fullest_window(conn, tmp_path: Path, monkeypatch) -> None:
    from lunavect.listing.attention import summarize
    from lunavect.usage.bar import limits_note

    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))  # no Claude status-line file there
    assert limits_note(conn, NOW) is None
    resets = NOW + 3600
    with conn:
        limits.record(
            conn,
            "codex",
            Limits(
                at=NOW - 60, limit_id="codex", primary=LimitWindow(42.0, 300, resets), secondary=LimitWindow(8, 10080)
            ),
        )
    # One report a minute old: how fast the window fills is not known yet.
    expected = f"codex 5 h 42 % · resets {dt.datetime.fromtimestamp(resets).strftime('%H:%M')} · pace unknown"
    assert limits_note(conn, NOW) == expected
    # The 5 h figure is old; the 7 d one holds, and did not grow in the last hour: it lasts.
    assert limits_note(conn, resets + 1) == "codex 7 d 8 % · lasts to reset"
    assert summarize(conn).notes in (
        (),
        (expected,),
        ("codex 7 d 8 % · lasts to reset",),
        ("codex 7 d 8 % · pace unknown",),
        ("codex 5 h 42 % (old)",),
    )


def test_a_row_s_detail_and_the_web_row_carry_the_usage_line() -> None:
    from lunavect.core.model import State
    from lunavect.core.tokens import SessionUsage
    from lunavect.frontends import rows
    from lunavect.frontends.web.document import page_row

    usage = SessionUsage(
        model="claude-opus-4-6",
        tokens=Tokens(177, 28_755, 11_618_567, 479_537),
        subagents=Tokens(0, 1000, 0, 0),
        context=106_060,
        context_window=200_000,
    )
    session = a_session(title="T", project="p", state=State.IDLE, basis=[], usage=usage)
    line = (
        "Tokens 12.1M (in 177 · out 28.8k · cache 11.6M read, 479.5k written) · sub-agents 1.0k · "
        "context 106.1k of 200.0k (53 %) · claude-opus-4-6"
    )
    assert line in rows.tooltip(session, NOW).splitlines()
    assert page_row(session).usage == line


def test_the_listed_usage_is_the_listed_sessions_only(conn) -> None:
    """What every refresh of a list reads: the sessions the store's `listed_session` view names, with their
    files' latest state; a session in the history but not in the list (not listed, or no longer in the
    snapshot) is not read."""
    fill(conn)
    with conn:
        ledger.set_state(conn, "/a.jsonl", "claude:a", "claude-sonnet-4-5-20250929", 1000, 200_000, NOW)
        ledger.set_state(conn, "/c.jsonl", "claude:c", "claude-sonnet-4-5", 5, 200_000, NOW)
        conn.execute("UPDATE snapshot SET listed = 0 WHERE id = 'codex:b'")
    listed = ledger.sessions(conn, listed=True)
    assert set(listed) == {"claude:a"}
    assert listed["claude:a"].tokens == Tokens(1_000_000, 1_000_000, 0, 0) and listed["claude:a"].context == 1000
    assert set(ledger.sessions(conn)) == {"claude:a", "codex:b", "claude:c", "claude:d"}
