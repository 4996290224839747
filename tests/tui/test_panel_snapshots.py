"""Snapshots of the panel's main views, with the data and the clock under the test's control.

`pytest tests/tui/test_panel_snapshots.py --snapshot-update` accepts a deliberate change of look (then
review the SVGs under __snapshots__/ before committing them).
"""

from __future__ import annotations

import tui_seed as seed
from tui_support import NO_SETUP, seven_clients, wait_for

from lunavect.frontends.tui.screens import HiddenScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing import arrangement

SIZE = (120, 30)


def many(conn) -> None:
    seed.write(conn, seed.every_state())
    arrangement.pin(conn, "claude:a3")
    arrangement.pin(conn, "codex:b1")
    arrangement.hide(conn, "claude:b5", seed.NOW - 3600)
    arrangement.hide(conn, "codex:b2", seed.NOW - 7200)


def test_empty(conn, make_app, snap_compare):
    assert snap_compare(make_app(setup=lambda: NO_SETUP), terminal_size=SIZE)


def test_many_sessions_in_every_state(conn, make_app, snap_compare):
    many(conn)
    assert snap_compare(make_app(), terminal_size=SIZE, press=["down", "down"])


def test_hidden_view(conn, make_app, snap_compare):
    many(conn)

    async def open_hidden(pilot) -> None:
        await pilot.press("h")
        await wait_for(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, HiddenScreen)
                and len(pilot.app.screen.query_one(SessionList).sessions) == 2
            ),
        )

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=open_hidden)


def test_filtered_by_awaiting_input(conn, make_app, snap_compare):
    many(conn)
    assert snap_compare(make_app(), terminal_size=SIZE, press=["a"])


def test_an_80_by_24_terminal_keeps_the_project_and_the_footers_keys(conn, make_app, snap_compare):
    """The smallest common terminal: the STATE column gives up its width first, so PROJECT stays; the footer
    keeps s (Settings), Space (Peek) and q (Quit)."""
    many(conn)
    assert snap_compare(make_app(), terminal_size=(80, 24), press=["down"])


def seven(conn, monkeypatch) -> None:
    """A session of each of seven clients (`seven_clients`), a few hidden."""
    every = seven_clients(monkeypatch)
    states = ("working", "ready", "permission", "idle", "ready", "input", "ready")
    seed.write(
        conn,
        [
            seed.session(
                f"s{i}", state, provider=p, title=f"Task of {p}", activity="thinking", since=40, updated=10 + i
            )
            for i, (p, state) in enumerate(zip(every, states, strict=False))
        ],
    )
    arrangement.hide(conn, "gemini:s2", seed.NOW - 600)


def test_seven_clients_at_80_by_24_choose_in_one_compact_choice(conn, make_app, snap_compare, monkeypatch):
    """Seven clients with sessions do not fit a button each at 80 columns: they give way to one drop-down, the
    search field keeps its words and Active, Hidden and Settings stay on screen. `c` twice chose Codex."""
    seven(conn, monkeypatch)
    assert snap_compare(make_app(), terminal_size=(80, 24), press=["c", "c"])


def test_seven_clients_compact_choice_open(conn, make_app, snap_compare, monkeypatch):
    """The drop-down open: All clients, then each client with a session, in the descriptors' order."""
    seven(conn, monkeypatch)

    async def open_choice(pilot) -> None:
        await wait_for(pilot, lambda: bool(pilot.app.screen.query("#client-choice")))
        await pilot.click("#client-choice")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=open_choice)


def test_the_keys_screen(conn, make_app, snap_compare):
    many(conn)
    assert snap_compare(make_app(), terminal_size=(120, 40), press=["question_mark"])


def test_many_sessions_in_a_light_theme(conn, make_app, snap_compare):
    """The person's theme, kept in the store: the panel in Textual's light theme."""
    from lunavect.frontends.tui import preferences

    many(conn)
    preferences.keep_theme(conn, "textual-light")
    assert snap_compare(make_app(), terminal_size=SIZE, press=["down", "down"])
