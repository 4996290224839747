"""The panel's provider filter lists every client its descriptors name: a stand-in third client
(tests/unit/standin_client) gets a button and a place in the keyboard's cycle, with no panel module edited."""

from __future__ import annotations

import standin_client
import tui_seed as seed
from textual.widgets import Button
from tui_support import ids, pilot_test

from lunavect.core import clients

SIZE = (140, 30)


@pilot_test
async def test_a_third_client_has_its_filter_button_and_its_turn_in_the_cycle(conn, make_app, monkeypatch):
    monkeypatch.setattr(clients, "CLIENTS", (*clients.CLIENTS, standin_client.CLIENT))
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
        assert str(app.query_one("#provider-standin", Button).label) == "Stand-in"
        await pilot.click("#provider-standin")
        assert ids(app) == ["standin:c"]
        await pilot.click("#provider-all")
        await pilot.press("c", "c", "c")  # Claude, Codex, then the stand-in
        assert ids(app) == ["standin:c"]
        await pilot.press("c")
        assert len(ids(app)) == 3
