"""Rows: what each session's line says, live, with the clock the test holds."""

from __future__ import annotations

import tui_seed as seed
from tui_support import lines, pilot_test, record_drawn_lines, wait_for

from lunavect.core.state_words import LEGEND
from lunavect.frontends.tui.columns import ColumnHeader
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
        # No timer without a current response: a finished session shows none (not its lifetime), only that its
        # client is open and when it last did anything.
        assert ready.rstrip().endswith("Response ready                    ● 6 min")
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


@pilot_test
async def test_every_row_says_open_or_ended_and_since_when_and_ended_ones_recede(conn, make_app, clock):
    """A reply from a minute ago in a running client and one from days ago whose client ended no longer read
    alike: the LAST column says which is open and how long ago each last did anything, in the person's order
    and with the counters unchanged, and the ended row's title is drawn quieter than the open one's."""
    seed.write(
        conn,
        [
            seed.session("old", "ready", title="February reply", updated=5 * 86400, open=False),
            seed.session("new", "ready", title="Fresh reply", updated=70),
            seed.session("w", "working", title="Still going", activity="thinking", since=20),
        ],
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one("#sessions", SessionList)
        assert [s.id for s in widget.sessions] == ["claude:w", "claude:new", "claude:old"]  # most recent first
        assert "LAST" in app.screen.query_one(ColumnHeader).render_line(0).text
        assert row_of(app, "claude:new").split()[-4:] == ["ready", "●", "1", "min"]
        assert row_of(app, "claude:old").split()[-4:] == ["Response", "ready", "○", "5", "d"][-4:]
        assert row_of(app, "claude:w").split()[-3:] == ["●", "now", "20s"]
        header = str(app.query_one("#working").render()), str(app.query_one("#awaiting").render())
        assert header == ("⚙ 1 working", "◆ 0 awaiting input")

        def title_style(key: str):
            index = [s.id for s in widget.sessions].index(key)
            strip = widget.render_line(index - int(widget.scroll_offset.y))
            return next(seg.style for seg in strip if "reply" in seg.text)

        quiet, plain = title_style("claude:old"), title_style("claude:new")
        assert quiet.color != plain.color and plain.bold and not quiet.bold

        # Time alone changes "1 min" into "4 min": only the lines whose words changed are drawn again.
        clock.advance(180)
        assert widget.refresh_ages() == 2  # the fresh reply and the working row; "5 d" still reads "5 d"
        assert row_of(app, "claude:new").rstrip().endswith("● 4 min")
        assert widget.refresh_ages() == 0


@pilot_test
async def test_the_errors_counter_shows_a_failed_turn_that_needs_its_person_and_the_legend_the_marks(conn, make_app):
    """The panel counts what the bars count, in the same words: a failed turn whose client still runs needs
    its person (`✗ 1 error`), one whose client ended does not; the line under the list says what ● and ○ mean."""
    seed.write(
        conn,
        [
            seed.session("e1", "error", title="Failed now", error="service", open=True),
            seed.session("e2", "error", title="Failed long ago", error="limit", updated=86400, open=False),
        ],
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        errors = app.query_one("#errors")
        assert errors.display and str(errors.render()) == "✗ 1 error"
        assert str(app.query_one("#legend").render()) == LEGEND and "● open" in LEGEND and "○ ended" in LEGEND
    seed.write(conn, [seed.session("e1", "error", title="Failed now", error="service", open=False)])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one("#errors").display
