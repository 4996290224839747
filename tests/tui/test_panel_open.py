"""Return to a task: Enter (or a click on the focused row) opens the session through the same function as
`lunavect open`, and the panel shows its outcome at the top."""

from __future__ import annotations

import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect.frontends.tui.session_list import SessionList
from lunavect.navigation.navigate import open_session

SIZE = (120, 30)


def finished(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    s = seed.session("f1", "ready", title="Finished task", updated=50)
    s.cwd = str(project)
    s.project = "proj"
    s.resume = f"cd {project} && claude --resume f1"
    return s


def outcome_text(session) -> str:
    result = open_session(session, resume_in=None, others=[])
    return result.message[1:]


@pilot_test
async def test_enter_opens_the_focused_session(conn, make_app, tmp_path):
    session = finished(tmp_path)
    seed.write(conn, [session])
    expected = outcome_text(session)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: expected in app.message, timeout=15, what=f"{expected!r} in {app.message!r}")


@pilot_test
async def test_a_click_focuses_a_row_and_a_click_on_the_focused_row_opens_it(conn, make_app, tmp_path):
    session = finished(tmp_path)
    seed.write(conn, [session, seed.session("other", "idle", title="Another", updated=500)])
    expected = outcome_text(session)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#sessions", offset=(10, 0))
        assert app.query_one("#sessions", SessionList).current.id == "claude:f1"
        assert app.message == ""  # a first click only focuses
        await pilot.pause(0.6)  # not a double click
        await pilot.click("#sessions", offset=(10, 0))
        await wait_for(pilot, lambda: expected in app.message, timeout=15, what=f"{expected!r} in {app.message!r}")
