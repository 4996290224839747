"""`lunavect reply` to a real Claude Code session whose turn failed: the client itself says "Resend your message to
try again", so a reply is typed there as at a ready prompt, with the same checks (its own pane, its prompt empty),
and the turn goes on."""

from __future__ import annotations

import json

from anthropic_server import AnthropicServer, error, has_tools, text
from lunavect_probe import lunavect, wait_state

RESEND = r"Resend your message to try again"


def test_a_failed_turn_takes_a_reply_where_claude_code_invites_one(
    claude_tmux, model_server: AnthropicServer, iso_home
):
    env = iso_home.env
    model_server.script(error(529))
    model_server.script(
        text("Second time lucky KAPPA-3"), match=lambda r: has_tools(r) and "again please" in r.last_user_text()
    )
    claude = claude_tmux()
    claude.send_text("first try")
    failed = wait_state(env, "error", timeout=60)
    # The empty prompt's placeholder (tests/unit/navigation/screens/claude_error_resend.txt is this screen).
    claude.wait_for_screen(RESEND, timeout=20)

    sent = lunavect(env, "reply", failed["id"], "again please", "--json")
    assert sent.returncode == 0, sent.stdout + sent.stderr
    assert json.loads(sent.stdout)["outcome"] == "sent"
    model_server.wait_for(lambda r: has_tools(r) and "again please" in r.last_user_text(), timeout=30)
    wait_state(env, "ready", timeout=40)
    claude.wait_for_screen("Second time lucky KAPPA-3", timeout=20)
