"""The panel's header says how far a first start's reading of a long history got, and nothing once it is done."""

from __future__ import annotations

from tui_support import pilot_test

from lunavect import store

SIZE = (140, 30)


@pilot_test
async def test_the_header_says_the_reading_of_the_history_and_goes_quiet_after(conn, make_app):
    with conn:
        store.set_collector_value(conn, "reading", "412 of 3,000")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        note = app.query_one("#reading")
        assert str(note.render()) == "reading history: 412 of 3,000"
        assert note.display
        with conn:
            store.set_collector_value(conn, "reading", "")  # the collector read it all
        note.refresh_note()  # type: ignore[attr-defined]
        assert not note.display


@pilot_test
async def test_no_reading_no_note(conn, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one("#reading").display
