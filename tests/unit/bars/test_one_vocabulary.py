"""Every surface says a state with the same words and marks: the panel, the web page, `list` and `watch`, the
bars, `status`, the popup and the tray, and tmux's pane borders; the counters and the pinned mark likewise
(`core.state_words` is their one owner; `list --json` keeps the raw contract)."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from unit_support import a_session

from lunavect.core import state_words
from lunavect.core.model import State
from lunavect.core.state_words import PIN_MARK, count_words
from lunavect.frontends import rows, table
from lunavect.frontends.bar import formats, popup
from lunavect.frontends.tui.columns import Column, cell
from lunavect.frontends.web import document
from lunavect.listing.attention import summarize_sessions
from lunavect.tmux_status.options import pane_states, short_text

NOW = 1_800_000_000.0
DETAILS: dict[State, dict[str, object]] = {
    State.WORKING: {"activity": "Bash"},
    State.PERMISSION: {"waiting_for": "Bash"},
    State.INPUT: {"waiting_for": "question"},
    State.ERROR: {"error": "unreachable"},
}


def one(state: State, **fields: object):
    values: dict[str, object] = dict(
        title="Deploy the site", project="site", state=state, open=True, tty="/dev/pts/7", pid=4242
    )
    return a_session(f"s-{state}", **{**values, **DETAILS.get(state, {}), **fields})


def test_every_surface_says_a_state_in_the_same_words():
    for state in State:
        for provider in ("claude", "codex"):
            session = one(state, provider=provider)
            words = state_words.state_words(session)
            panel, _style = cell(session, Column("state", "STATE", 40), NOW)
            assert panel == words, state
            assert document.page_row(session).label == words
            listed = table.render([session], now=_dt.datetime.fromtimestamp(NOW, _dt.UTC), width=200)
            assert listed.splitlines()[1].startswith(words), listed  # `list` and `watch` print the panel's words
            assert rows.label(session).startswith(f"{words} · Deploy the site")  # status, bars, popup, tray
            assert pane_states([session]) == {"/dev/pts/7": words}  # tmux's pane border
    assert state_words.state_words(one(State.PERMISSION)) == "Permission needed: Bash"
    assert state_words.state_words(one(State.ERROR, provider="codex")) == "Can't reach Codex"


def test_every_surface_marks_a_pinned_row_alike():
    pinned = one(State.READY, pinned=True)
    assert cell(pinned, Column("gutter", "", 2), NOW)[0] == PIN_MARK
    listed = table.render([pinned], now=_dt.datetime.fromtimestamp(NOW, _dt.UTC), width=200)
    assert listed.splitlines()[1].startswith(PIN_MARK + "  ")
    page = (Path(document.__file__).parent / "static" / "app.js").read_text(encoding="utf-8")
    assert f'aria-label="pinned">{PIN_MARK}<' in page and "▲" not in page


def test_every_surface_counts_in_the_same_words_and_marks():
    sessions = [
        one(State.WORKING),
        one(State.PERMISSION),
        one(State.INPUT),
        one(State.ERROR),
        one(State.READY),
    ]
    summary = summarize_sessions(sessions)
    words = [count_words("working", 1), count_words("awaiting_input", 2), count_words("errors", 1)]
    assert words == ["⚙ 1 working", "◆ 2 awaiting input", "✗ 1 error"]
    assert rows.counts_text(summary) == " · ".join(words)  # status, the tray's title, watch's header
    assert formats.plain(summary).startswith(" · ".join(words) + " · Permission needed: Bash · Deploy the site")
    assert short_text(summary) == "⚙ 1  ◆ 2  ✗ 1"  # tmux, waybar, i3blocks, polybar
    page = document.build(sessions)
    assert page.counters == {"working": words[0], "awaiting_input": words[1], "errors": words[2]}
    assert popup.draw(list(summary.attention), 0).count("Permission needed: Bash · Deploy the site") == 1


def test_watch_says_the_counters_and_the_rows_in_the_panels_words(iso_env):
    from unit_support import seed_snapshot

    from lunavect.frontends.watch import frame

    conn = iso_env.connect()
    seed_snapshot(conn, one(State.PERMISSION), one(State.WORKING))
    text = frame(conn, include_hidden=False, explain_empty=lambda: "")
    header, _blank, columns, *rows_shown = text.splitlines()
    assert header.endswith("⚙ 1 working · ◆ 1 awaiting input")
    assert columns.split()[:3] == ["STATE", "TIMER", "LAST"]
    assert any(row.startswith("Permission needed: Bash") for row in rows_shown), text
