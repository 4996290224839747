"""The panel beside a real Claude Code session: run `lunavect` (the panel) in tmux, make Claude work, and read
its row change from working to ready on the panel's own screen."""

from __future__ import annotations

import re
import sys
import time

from anthropic_server import text, tool_use
from claude_tmux import ClaudeTmux

# The row: its state, the LAST column (● now: its client runs, it did something just now), its timer.
WORKING_ROW = re.compile(r"Working: Bash\s+● now\s+(\d+)s\s*$", re.M)


def test_panel_in_tmux_shows_a_real_session_go_from_working_to_ready(claude_tmux, model_server, iso_home):
    assert iso_home.lunavect_hooks_installed
    # The command runs until the test has seen its row working and its timer tick (a loaded machine may take
    # longer than any fixed sleep to draw it), then ends within a fifth of a second of the test's word.
    done = iso_home.work / "build-done"
    model_server.script(
        tool_use(
            "Bash",
            {"command": f"while [ ! -e {done} ]; do sleep 0.2; done; echo built", "description": "Build the thing"},
        ),
        text("Built it."),
    )
    claude = claude_tmux("--allowedTools", "Bash")
    # The README's first command runs `lunavect` with no arguments: that is the panel.
    panel = ClaudeTmux(
        sys.executable,
        iso_home.env,
        iso_home.work,
        ["-m", "lunavect"],
        root=iso_home.root,
        width=120,
        height=30,
        session="panel",
    )
    try:
        panel.start()
        panel.wait_for_screen(r"0 working\s+◆ 0 awaiting input", timeout=60)  # the header is drawn

        claude.send_text("build the thing")

        first = int(panel.wait_for_screen(WORKING_ROW, timeout=60).group(1))
        assert "1 working" in panel.capture()
        # The current response's timer ticks on the panel's screen while Claude runs the command.
        later = first
        deadline = time.monotonic() + 10
        while later == first and time.monotonic() < deadline:
            time.sleep(0.2)
            match = WORKING_ROW.search(panel.capture())
            if match is None:
                break
            later = int(match.group(1))
        assert later > first, panel.capture()

        done.touch()
        panel.wait_for_screen(r"Response ready", timeout=60)
        screen = panel.capture()
        assert "Working: Bash" not in screen, screen
        assert "0 working" in screen, screen
    finally:
        panel.kill()
