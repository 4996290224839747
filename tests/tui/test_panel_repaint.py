"""A change that keeps every widget's size asks for no layout pass: the header's counter going from 0 to 1 and
the row's new state are drawn in their own cells. (Each layout pass arranges the whole screen again; at every
change of the store it was the larger part of the panel's CPU per change with a thousand sessions.)"""

from __future__ import annotations

import tui_seed as seed
from textual.widget import Widget
from tui_support import ids, pilot_test, record_drawn_lines, wait_for

SIZE = (120, 30)


@pilot_test
async def test_a_change_that_keeps_every_size_asks_for_no_layout_pass(conn, make_app, monkeypatch):
    seed.write(conn, [seed.session(f"r{n:02}", "ready", updated=60 + n) for n in range(20)])
    drawn = record_drawn_lines(monkeypatch)
    layouts: list[str] = []
    refresh = Widget.refresh

    def spy(self, *regions, **options):
        if options.get("layout"):
            layouts.append(f"{type(self).__name__}#{self.id}")
        return refresh(self, *regions, **options)

    monkeypatch.setattr(Widget, "refresh", spy)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(ids(app)) == 20)
        assert "⚙ 0 working" in str(app.query_one("#working").content)
        # The start's own layout passes (the footer's bindings, arriving late on a loaded machine) end first.
        for _ in range(40):
            layouts.clear()
            await pilot.pause(0.3)
            if not layouts:
                break
        assert layouts == [], "the panel never settled after its start"
        drawn.clear()
        seed.write(conn, [seed.session("r05", "working", activity="Bash", since=3, updated=65)])
        await wait_for(pilot, lambda: any("Working: Bash" in line for line in drawn), timeout=60)
        await pilot.pause(0.3)
        assert "⚙ 1 working" in str(app.query_one("#working").content)
        assert layouts == []
        # And a counter whose width changes still gets its layout pass (nothing is cut or left padded).
        seed.write(conn, [seed.session(f"r{n:02}", "working", since=3, updated=60 + n) for n in range(10, 20)])
        await wait_for(pilot, lambda: "⚙ 11 working" in str(app.query_one("#working").content), timeout=60)
        assert "Counter#working" in layouts
