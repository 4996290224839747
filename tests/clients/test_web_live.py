"""The web panel beside a real Claude Code session: `lunavect web` and its collector, Chromium on the page, and
Claude in tmux against the scripted model; the row goes from working to ready in the open page, without a
reload (the page's own document stays the same throughout)."""

from __future__ import annotations

from anthropic_server import text, tool_use
from web_support import chromium_browser, open_page, start_web  # noqa: E402,F401 - the `browser` fixture

from lunavect.core.state_words import WORKING_MARK

STATES = "[...document.querySelectorAll('#sessions li.row .state')].map(e => e.textContent)"


def test_web_panel_shows_a_real_session_go_from_working_to_ready_without_reload(
    claude_tmux, model_server, iso_home, browser
):
    assert iso_home.lunavect_hooks_installed
    model_server.script(
        tool_use("Bash", {"command": "sleep 4; echo built", "description": "Build the thing"}),
        text("Built it."),
    )
    claude = claude_tmux("--allowedTools", "Bash")
    served = start_web(iso_home.env)
    try:
        page = open_page(browser, served.control)
        page.evaluate("window.sameDocument = true")
        claude.send_text("build the thing")
        page.wait_for_function(f"() => {STATES}.includes('Working: Bash')", timeout=60_000)
        assert page.locator("#working").inner_text() == f"{WORKING_MARK} 1 working"
        page.wait_for_function(f"() => {STATES}.includes('Response ready')", timeout=60_000)
        assert "Working: Bash" not in page.evaluate(f"() => {STATES}")
        assert page.locator("#working").inner_text() == f"{WORKING_MARK} 0 working"
        assert page.evaluate("window.sameDocument") is True
    finally:
        served.stop()
