"""The panel's client filter names the clients the list holds, whichever and however many lunavect knows: a
stand-in client (tests/unit/standin_client) gets a button and a place in the keyboard's cycle with no panel
module edited; a client with no session gets none, until its first session appears; one client alone gets no
buttons at all; and where a button per client does not fit, they give way to one compact choice."""

from __future__ import annotations

import tui_seed as seed
from textual.widgets import Button, Select
from tui_support import ids, pilot_test, seven_clients, wait_for

from lunavect.frontends.tui import preferences
from lunavect.frontends.tui.filters import Filter
from lunavect.listing import arrangement

SIZE = (140, 30)


def shown_buttons(app) -> list[str]:
    """The client buttons on screen, in their order (All included)."""
    return [str(b.label) for b in app.query("#toolbar Button.provider") if b.display]


@pilot_test
async def test_a_client_has_its_button_and_its_turn_in_the_cycle_only_while_it_has_sessions(
    conn, make_app, monkeypatch
):
    seven_clients(monkeypatch)
    seed.write(
        conn,
        [
            seed.session("a", "ready", title="Claude's", updated=10),
            seed.session("b", "ready", title="Codex's", provider="codex", updated=20),
            seed.session("c", "ready", title="The stand-in's", provider="standin", updated=30),
        ],
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        # Gemini, OpenCode, Copilot and the second stand-in have no session: no button.
        assert shown_buttons(app) == ["All", "Claude", "Codex", "Stand-in"]
        await pilot.click("#provider-standin")
        assert ids(app) == ["standin:c"]
        await pilot.click("#provider-all")
        await pilot.press("c", "c", "c")  # Claude, Codex, then the stand-in: no client without sessions
        assert ids(app) == ["standin:c"]
        await pilot.press("c")
        assert len(ids(app)) == 3 and app.panel.filter.provider == "all"
        # A first session of another client brings its button, in the descriptors' order.
        seed.write(conn, [seed.session("d", "working", title="Gemini's", provider="gemini", activity="thinking")])
        app.panel.reload()
        await wait_for(pilot, lambda: shown_buttons(app) == ["All", "Claude", "Codex", "Gemini", "Stand-in"])


@pilot_test
async def test_a_hidden_row_keeps_its_clients_button(conn, make_app, monkeypatch):
    seven_clients(monkeypatch)
    seed.write(
        conn,
        [
            seed.session("a", "ready", title="Claude's", updated=10),
            seed.session("b", "ready", title="Codex's", provider="codex", updated=20),
        ],
    )
    arrangement.hide(conn, "codex:b", seed.NOW - 60)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert shown_buttons(app) == ["All", "Claude", "Codex"]  # the hidden row is listed: its client counts
        await pilot.click("#provider-codex")
        assert ids(app) == []


@pilot_test
async def test_a_chosen_client_keeps_its_button_and_one_client_alone_has_none(conn, make_app, monkeypatch):
    seven_clients(monkeypatch)
    seed.write(conn, [seed.session("a", "ready", title="Claude's", updated=10)])
    # Codex chosen when the panel last closed, and its sessions gone since.
    preferences.keep_filter(conn, Filter(provider="codex"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert shown_buttons(app) == ["All", "Claude", "Codex"]
        assert app.query_one("#provider-codex", Button).has_class("-selected") and ids(app) == []
        await pilot.click("#provider-all")
        # One client alone and All chosen: no client buttons at all, and c has nothing to cycle.
        await wait_for(pilot, lambda: shown_buttons(app) == [])
        await pilot.press("c")
        assert app.panel.filter.provider == "all" and ids(app) == ["claude:a"]


@pilot_test
async def test_seven_clients_at_80_columns_give_way_to_one_compact_choice(conn, make_app, monkeypatch):
    every = seven_clients(monkeypatch)
    seed.write(conn, [seed.session(f"s{i}", "ready", provider=p, updated=10 + i) for i, p in enumerate(every)])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        choice = app.query_one("#client-choice", Select)
        assert choice.display and shown_buttons(app) == []
        for name in ("active", "hidden", "settings"):  # every other button stays within the screen
            region = app.query_one(f"#{name}", Button).region
            assert region.width and region.right <= 80
        await pilot.press("c", "c")  # the keyboard cycles the same choices: Claude, then Codex
        assert ids(app) == ["codex:s1"]
        await wait_for(pilot, lambda: choice.value == "codex")
        await pilot.click("#client-choice")  # the drop-down opens on its choices; the last is the second stand-in
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: ids(app) == ["standin2:s6"])
        await pilot.resize_terminal(160, 24)  # room for a button each again
        await wait_for(pilot, lambda: not choice.display and len(shown_buttons(app)) == len(every) + 1)
        assert app.query_one("#provider-standin2", Button).has_class("-selected")
