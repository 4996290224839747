"""The peek's answer keys: they exist only while the followed session waits for a permission, the peek says them
only then, and each asks before it answers; `n` is Next there as in the list and never answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect.frontends.tui.confirm import ConfirmAnswer
from lunavect.frontends.tui.peek import ANSWER_HELP, PeekPane

SIZE = (120, 40)


def sessions() -> list:
    return [
        seed.session("p1", "permission", title="Rotate the key", waiting_for="Bash", updated=5),
        seed.session("r1", "ready", title="A reply", updated=50),
    ]


def spy_answers(monkeypatch) -> list[tuple[str, str]]:
    """Every answer the peek would give (the peek's one way to a client's dialog), kept instead of given."""
    given: list[tuple[str, str]] = []
    monkeypatch.setattr(PeekPane, "_act", lambda self, session, what, text: given.append((session.id, what)))
    return given


def title(app) -> str:
    return str(app.query_one("#peek-title").render())


@asynccontextmanager
async def peeking(conn, make_app, monkeypatch, *keys: str, shows: str) -> AsyncIterator[tuple[object, object, list]]:
    """The panel on the two sessions, the peek opened by `keys` once its title `shows`; the app, its pilot and
    the answers the peek gave (kept instead of given)."""
    given = spy_answers(monkeypatch)
    seed.write(conn, sessions())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)
        await wait_for(pilot, lambda: shows in title(app), what=f"{shows!r} in the peek's title")
        yield app, pilot, given


@pilot_test
async def test_n_in_the_peek_of_a_pending_permission_answers_nothing_and_is_next(conn, make_app, monkeypatch):
    async with peeking(conn, make_app, monkeypatch, "down", "space", shows="Permission needed: Bash") as found:
        app, pilot, given = found
        assert ANSWER_HELP in title(app)  # the peek says its answer keys while a permission is pending
        assert "n deny" not in title(app)
        await pilot.press("n")
        # Next, as in the list: the session that needs the person most is opened, nothing is answered.
        await wait_for(pilot, lambda: app.panel.message != "", what="Next's message")
        await pilot.pause(0.3)
        assert given == [] and not isinstance(app.screen, ConfirmAnswer)


@pilot_test
async def test_each_answer_asks_first_and_esc_keeps_the_session_waiting(conn, make_app, monkeypatch):
    async with peeking(conn, make_app, monkeypatch, "down", "space", shows=ANSWER_HELP) as found:
        app, pilot, given = found
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAnswer), what="the question")
        assert str(app.screen.query_one("#menu-title").render()) == "Deny Bash for “Rotate the key”?"
        await pilot.press("n", "y", "escape")  # no key of the question answers but Enter on the answer
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmAnswer), what="the question closed")
        assert given == []
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAnswer), what="the question")
        await pilot.press("enter")
        await wait_for(pilot, lambda: given == [("claude:p1", "allow")], what="the answer given")


@pilot_test
async def test_no_answer_keys_without_a_pending_permission(conn, make_app, monkeypatch):
    async with peeking(conn, make_app, monkeypatch, "down", "down", "space", shows="Response ready") as found:
        app, pilot, given = found  # the peek of the ready reply
        assert ANSWER_HELP not in title(app)
        assert not {"y", "A", "d"} & {key for key, active in app.active_bindings.items() if active.enabled}
        await pilot.press("y", "A", "d")
        await pilot.pause(0.3)
        assert given == [] and not isinstance(app.screen, ConfirmAnswer)
