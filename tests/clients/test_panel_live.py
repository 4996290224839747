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


def started_panel(iso_home, height: int) -> ClaudeTmux:
    """The panel in a tmux pane of its own, its header drawn. The README's first command runs `lunavect` with no
    arguments: that is the panel."""
    panel = ClaudeTmux(
        sys.executable,
        iso_home.env,
        iso_home.work,
        ["-m", "lunavect"],
        root=iso_home.root,
        width=120,
        height=height,
        session="panel",
    )
    try:
        panel.start()
        panel.wait_for_screen(r"0 working\s+◆ 0 awaiting input", timeout=60)
    except BaseException:
        panel.kill()
        raise
    return panel


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
    panel = started_panel(iso_home, height=30)
    try:
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


PERMISSION_DIALOG = r"Do you want to proceed\?"


def dialog(screen: str) -> str:
    """The permission dialog as the client draws it (above it, an animated mark of its own comes and goes)."""
    match = re.search(PERMISSION_DIALOG, screen)
    assert match, screen
    return screen[match.start() :]


def test_n_in_the_peek_of_a_pending_permission_types_nothing(claude_tmux, model_server, iso_home):
    """The peek of a real Claude Code session waiting for a permission: `n` (Next in the list) leaves the
    client's dialog as it was, nothing typed, the command not run; `d` asks first, and only Enter on the
    question denies it."""
    marker = iso_home.work / "never-made.txt"
    model_server.script(
        tool_use("Bash", {"command": f"touch {marker}", "description": "make the marker"}),
        text("Not made."),
    )
    claude = claude_tmux("--permission-mode", "default")
    panel = started_panel(iso_home, height=40)
    try:
        claude.send_text("make the marker")
        claude.wait_for_screen(PERMISSION_DIALOG, timeout=60)
        panel.wait_for_screen(r"Permission needed: Bash", timeout=60)
        panel.send_keys("Down")
        panel.send_keys("Space")
        panel.wait_for_screen(r"y allow · A always allow · d deny", timeout=20)
        before = dialog(claude.capture())

        panel.send_keys("n")
        time.sleep(3)  # an answer is pressed within a second of the key (navigation.reply)
        assert dialog(claude.capture()) == before, claude.capture()  # the same dialog, the same choice marked
        assert not marker.exists()
        assert "Permission needed: Bash" in panel.capture()

        panel.send_keys("d")
        panel.wait_for_screen(r"Deny Bash for ", timeout=20)
        panel.send_keys("Enter")
        deadline = time.monotonic() + 30
        while re.search(PERMISSION_DIALOG, claude.capture()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not re.search(PERMISSION_DIALOG, claude.capture()), claude.capture()
        assert not marker.exists()
    finally:
        panel.kill()
