"""Rows: what each session's line says, live, with the clock the test holds."""

from __future__ import annotations

import tui_seed as seed
from tui_support import lines, pilot_test, record_drawn_lines, wait_for

from lunavect.frontends.tui.session_list import SessionList

SIZE = (120, 30)


def row_of(app, key: str) -> str:
    widget = app.query_one("#sessions", SessionList)
    index = next(i for i, s in enumerate(widget.sessions) if s.id == key)
    return lines(app)[index]


@pilot_test
async def test_rows_show_title_project_provider_state_detail_timer_and_capsule(conn, make_app):
    seed.write(conn, seed.every_state())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        working = row_of(app, "claude:a2")
        assert "Run the test suite" in working and "lunavect" in working and "claude" in working
        assert "Working: Bash" in working  # the running tool's name
        assert " 3 " in working  # the capsule: 2 commands + 1 agent
        assert working.rstrip().endswith("3m 05s")  # the current response's timer, since 185 s
        assert "Thinking" in row_of(app, "claude:a1")
        assert "Permission needed: Bash" in row_of(app, "claude:a5")
        assert "Input needed: question" in row_of(app, "claude:a6")
        assert "Limit reached" in row_of(app, "claude:b3")  # the error's reason
        assert "In background" in row_of(app, "claude:a3") and row_of(app, "claude:a3").rstrip().endswith("21m 00s")
        assert "Compacting context" in row_of(app, "claude:a4")
        assert "No network" in row_of(app, "claude:b4")
        assert "Unknown or stale" in row_of(app, "claude:b5")
        ready = row_of(app, "codex:b1")
        assert "Response ready" in ready and "codex" in ready and "api" in ready
        # No timer without a current response: a finished session shows none (not its lifetime).
        assert ready.rstrip().endswith("Response ready")
        assert "Idle" in row_of(app, "codex:b2")


@pilot_test
async def test_capsule_only_while_working_and_its_detail_lists_counts_by_kind(conn, make_app):
    seed.write(
        conn,
        [
            seed.session(
                "w", "working", activity="thinking", since=10, background={"shell": 2, "agent": 1, "monitor": 1}
            ),
            # A ready session with stale background counts shows no capsule: it does not work.
            seed.session("r", "ready", background={"shell": 1}, updated=5),
        ],
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert " 4 " in row_of(app, "claude:w")
        assert " 1 " not in row_of(app, "claude:r")
        widget = app.query_one("#sessions", SessionList)
        index = [s.id for s in widget.sessions].index("claude:w")
        await pilot.hover("#sessions", offset=(5, index))
        await pilot.pause()
        tip = str(widget.tooltip)
        assert "Background: 2 commands, 1 agent, 1 monitor" in tip
        # Hidden detail carries kinds, counts, ids and times only.
        assert "claude:w" in tip and "This response: 10s" in tip


@pilot_test
async def test_a_state_change_in_the_store_shows_on_the_open_panel(conn, make_app):
    """Another connection's commit reaches the open panel by itself. How fast is bench/panel.py's job: the
    bound here is only a generous limit to waiting, so a loaded machine cannot make it fail."""
    seed.write(conn, [seed.session("s1", "working", title="Live one", activity="Bash", since=3)])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Working: Bash" in row_of(app, "claude:s1"))
        seed.write(conn, [seed.session("s1", "ready", title="Live one", updated=0)])  # another connection commits
        await wait_for(pilot, lambda: "Response ready" in row_of(app, "claude:s1"), timeout=60)


@pilot_test
async def test_timers_tick_while_the_panel_is_visible(conn, make_app, clock, monkeypatch):
    seed.write(conn, [seed.session("t", "working", activity="thinking", since=42)])
    drawn = record_drawn_lines(monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(line.rstrip().endswith("42s") for line in drawn))
        clock.advance(5)
        # Nothing changes in the store: only the display timer can redraw the row (it ticks once a second; how
        # promptly is not asserted here, so a loaded machine cannot make this fail).
        await wait_for(pilot, lambda: any(line.rstrip().endswith("47s") for line in drawn), timeout=30)


@pilot_test
async def test_without_a_running_timer_a_tick_redraws_nothing(conn, make_app, clock, monkeypatch):
    seed.write(conn, [seed.session("r", "ready", updated=30)])
    calls: list[int] = []
    original = SessionList.render_line

    def spy(self, y):
        calls.append(y)
        return original(self, y)

    monkeypatch.setattr(SessionList, "render_line", spy)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(calls) > 0)
        await pilot.pause(1.0)  # the first drawing is done
        before = len(calls)
        clock.advance(5)
        await pilot.pause(2.5)
        assert len(calls) == before
