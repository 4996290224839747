"""What a panel row says and which rows a filter keeps: pure, with a clock the test holds."""

from __future__ import annotations

from unit_support import a_session

from lunavect.core.model import ErrorReason, Session
from lunavect.frontends import rows
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.filters import Filter
from lunavect.frontends.web import document

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def make(state: str, **fields) -> Session:
    """A row of one Claude Code session with its words filled in; a test names only what it is about."""
    words: dict[str, object] = dict(id="claude:s", title="Fix the parser", project="lunavect", cwd="/x", basis=[])
    return a_session(state=state, **{**words, **fields})


def test_state_words_with_their_detail():
    assert rows.state_label(make("working", activity="thinking")) == "Thinking"
    assert rows.state_label(make("working", activity="Bash")) == "Working: Bash"
    assert rows.state_label(make("background")) == "In background"
    assert rows.state_label(make("compacting")) == "Compacting context"
    assert rows.state_label(make("permission", waiting_for="Edit")) == "Permission needed: Edit"
    assert rows.state_label(make("permission")) == "Permission needed"
    assert rows.state_label(make("input", waiting_for="question")) == "Input needed: question"
    assert rows.state_label(make("input", waiting_for="link")) == "Input needed: open a link"
    assert rows.state_label(make("ready")) == "Response ready"
    assert rows.state_label(make("idle")) == "Idle"
    assert rows.state_label(make("offline")) == "No network"
    assert rows.state_label(make("unknown")) == "Unknown or stale"
    words = {reason: rows.state_label(make("error", error=reason)) for reason in ErrorReason}
    assert words == {
        "limit": "Limit reached",
        "unreachable": "Can't reach Claude",
        "service": "Service error",
        "auth": "Sign in again",
        "account": "Account issue",
        "other": "Error",
    }


def test_timer_is_the_current_response_and_elapsed_words():
    assert rows.timer(make("working", since="2027-01-15T07:59:18Z"), NOW) == "42s"
    assert rows.timer(make("ready"), NOW) == ""  # no current response: no timer at all
    assert [rows.elapsed(s) for s in (0, 59, 60, 185, 3600, 7322, 86400 * 2 + 3600 * 5)] == [
        "0s",
        "59s",
        "1m 00s",
        "3m 05s",
        "1h 00m",
        "2h 02m",
        "2d 05h",
    ]
    assert rows.elapsed(-5) == "0s"  # a clock behind the event never shows a negative timer


def test_a_session_that_waits_for_its_person_shows_how_long_it_has_waited():
    """A closing question after a finished reply has no response running: its timer is the wait, from the
    moment it began (as a permission shows its response's), on the panel, the page and the bars alike."""
    question = make("input", waiting_for="question", last_active="2027-01-15T07:57:00Z")
    assert rows.timer(question, NOW) == "3m 00s"
    assert rows.waited(question, NOW) == "3m 00s"
    assert document.page_row(question).since == (NOW - 180) * 1000
    assert "Waiting for you: 3m 00s" in rows.tooltip(question, NOW).splitlines()
    asking = make("permission", waiting_for="Bash", since="2027-01-15T07:59:18Z", last_active="2027-01-15T07:59:50Z")
    assert rows.timer(asking, NOW) == "42s"  # a running response keeps its own timer
    assert rows.timer(make("ready", last_active="2027-01-15T07:57:00Z"), NOW) == ""


def test_capsule_counts_background_work_only_while_working():
    working = make("working", activity="thinking", background={"shell": 2, "agent": 1, "monitor": 1})
    assert rows.background_count(working) == 4
    assert rows.background_detail(working) == "2 commands, 1 agent, 1 monitor"
    assert rows.background_count(make("background", background={"shell": 1})) == 1
    assert rows.background_count(make("ready", background={"shell": 1})) == 0
    assert (
        rows.background_detail(make("working", background={"workflow": 1, "other": 2})) == "1 workflow, 2 other tasks"
    )


def test_tooltip_holds_kinds_counts_ids_and_times_only():
    s = make(
        "working",
        activity="Bash",
        since="2027-01-15T07:59:00Z",
        background={"shell": 1},
        open=True,
        last_active="2027-01-15T07:57:00Z",
    )
    tip = rows.tooltip(s, NOW)
    assert tip.splitlines() == [
        "Fix the parser",
        "claude · lunavect",
        "Working: Bash",
        "Open · last active 3 min ago",
        "Background: 1 command",
        "This response: 1m 00s",
        "claude:s",
    ]


def test_ages_and_spans_as_every_front_end_says_them():
    from lunavect.core.times import age, span

    assert [age(s) for s in (-5, 0, 59, 60, 3599, 3600, 86399, 86400 * 5, 10**12, float("nan"))] == [
        "now",
        "now",
        "now",
        "1 min",
        "59 min",
        "1 h",
        "23 h",
        "5 d",
        "9999 d",
        "now",
    ]
    assert [span(s) for s in (0, 59, 60, 4800, 3600, 86400 + 3 * 3600, 2 * 86400, float("inf"))] == [
        "0 m",
        "0 m",
        "1 m",
        "1 h 20 m",
        "1 h",
        "1 d 3 h",
        "2 d",
        "0 m",
    ]


def test_open_or_ended_and_since_when():
    """Every row says whether its client still runs and how long ago it last did anything, to the unit that
    matters at that distance; a session whose time is unknown shows its mark alone."""
    cases = [
        (dict(open=True, last_active="2027-01-15T07:59:30Z"), "● now", "Open · last active just now"),
        (dict(open=True, last_active="2027-01-15T07:57:00Z"), "● 3 min", "Open · last active 3 min ago"),
        (dict(open=False, last_active="2027-01-15T05:30:00Z"), "○ 2 h", "Ended · last active 2 h ago"),
        (dict(open=False, last_active="2027-01-10T08:00:00Z"), "○ 5 d", "Ended · last active 5 d ago"),
        (dict(open=False, last_active=None), "○", "Ended"),
        (dict(open=False, last_active="not a time"), "○", "Ended"),
    ]
    for fields, column, words in cases:
        session = make("ready", **fields)
        assert (rows.last_seen(session, NOW), rows.presence(session, NOW)) == (column, words)


def test_filters():
    sessions = [
        make("working", id="claude:1", title="Parser work", project="lunavect"),
        make("permission", id="claude:2", title="Delete cache", project="infra"),
        make("ready", id="codex:3", provider="codex", title="Docs", project="website"),
        make("input", id="codex:4", provider="codex", title="Question", project="lunavect"),
    ]
    keys = filters.SearchKeys()  # the panel keeps each row's search key; the result is the same either way

    def keep(value: Filter) -> list[str]:
        kept = [s.id for s in value.apply(sessions)]
        assert [s.id for s in value.apply(sessions, keys)] == kept
        return kept

    assert keep(Filter()) == ["claude:1", "claude:2", "codex:3", "codex:4"]
    assert keep(Filter(search="LUNAVECT")) == ["claude:1", "codex:4"]  # project, any case
    assert keep(Filter(search="parser lunavect")) == ["claude:1"]  # every word
    assert keep(Filter(provider="codex")) == ["codex:3", "codex:4"]
    assert keep(Filter(active=True)) == ["claude:1", "claude:2", "codex:4"]
    assert keep(Filter(awaiting=True)) == ["claude:2", "codex:4"]
    assert keep(Filter(awaiting=True, provider="claude")) == ["claude:2"]
    assert not Filter().narrows and Filter(search=" x ").narrows


def test_a_stored_filter_survives_and_a_damaged_one_is_the_default():
    value = Filter(search="docs", provider="codex", active=True)
    assert filters.loads(filters.dumps(value)) == value
    assert filters.loads(None) == Filter()
    assert filters.loads("{not json") == Filter()
    assert filters.loads('{"provider": "other"}') == Filter()
    assert filters.loads('{"search": 5}') == Filter()


def test_a_narrow_panel_narrows_state_before_it_drops_the_project():
    """At 80 columns (77 for the list) the STATE column gives up its width first and PROJECT stays; only a
    narrower list drops PROJECT; a wide one keeps every column at its full width."""
    from lunavect.frontends.tui.columns import STATE_MIN, layout

    def widths(width: int) -> dict[str, int]:
        return {c.name: c.width for c in layout(width)}

    eighty = widths(77)
    assert "project" in eighty and STATE_MIN <= eighty["state"] < 22 and eighty["title"] >= 15
    assert "project" not in widths(60)
    wide = widths(117)
    assert wide["state"] == 26 and wide["project"] == 16
