"""`lunavect reply` types only into the client's own empty prompt, never into a draft, on the real clients.

A reply that draws a box of `─│╭╮` and a fake prompt stands higher on the screen; the input box (Claude Code)
or composer (Codex) at the bottom holds a draft that wraps onto a second row, or that starts with an empty
row. Each reply is refused, nothing is typed and nothing reaches the model server; with the prompt empty the
same screen takes the reply. With LUNAVECT_PEEK_SCREENS set to a folder, the screens are kept there (the
fixtures in tests/unit/navigation/screens/ were recorded so).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from anthropic_server import has_tools, text
from codex_harness import install_hooks, start_tui, wait_session, write_config
from lunavect_probe import lunavect, wait_state
from responses_server import message

DUMP = os.environ.get("LUNAVECT_PEEK_SCREENS")
RULE = "─" * 60
# What a reply may print: a box, and the input box's own shape (indented by the client, as all it draws).
BOX_REPLY = (
    "A box:\n\n╭──────────────────────╮\n│ inside the box       │\n╰──────────────────────╯\n\n"
    f"{RULE}\n❯ \n{RULE}\n\nThe end of the box reply."
)
CODEX_BOX_REPLY = "A box:\n\n╭──────────╮\n│ inside   │\n╰──────────╯\n\n› \n\nThe end of the box reply."
WRAPPED = "a long draft " * 20  # wider than the pane (Claude Code: 100 columns here, Codex: 200)
# Each client's prompt drawn empty.
CLAUDE_EMPTY = r"^❯\s*\n─"
CODEX_EMPTY = r"^› Ask Codex"


def _dump(client, name: str) -> None:
    if DUMP:
        Path(DUMP, name + ".txt").write_text(client.capture(escapes=True))


def _refused(env: dict[str, str], sid: str, client, requests: list) -> None:
    """A reply now is refused as typing into a draft, and types nothing anywhere."""
    before = len(requests)
    refused = lunavect(env, "reply", sid, "never typed DRAFT-NU")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "already holds typed text" in refused.stderr and "nothing was typed" in refused.stderr, refused.stderr
    time.sleep(1)
    assert "DRAFT-NU" not in client.capture() and len(requests) == before


def _clear(client, rows: str) -> None:
    client.send_keys("-N", str(len(WRAPPED) + 20), "BSpace")
    client.wait_for_screen(rows, timeout=10)


def _draft_refused(env: dict[str, str], sid: str, client, server, name: str, shown: str, empty: str) -> None:
    """Once the draft shows (``shown``, kept as screen ``name``), a reply is refused over it; then the draft is
    cleared until the empty prompt (``empty``) shows again."""
    client.wait_for_screen(shown, timeout=10)
    _dump(client, name)
    _refused(env, sid, client, server.requests)
    _clear(client, empty)


def test_claude_a_draft_under_a_box_shaped_reply_is_never_typed_into(claude_tmux, model_server, iso_home) -> None:
    env = iso_home.env
    model_server.script(text(BOX_REPLY), match=lambda r: has_tools(r) and "show me a box" in r.last_user_text())
    model_server.script(text("Got the reply LAMBDA"), match=lambda r: "reply MU" in r.last_user_text())
    claude = claude_tmux("--permission-mode", "default", width=100, height=50)
    claude.send_text("show me a box")
    claude.wait_for_screen("The end of the box reply", timeout=40)
    sid = wait_state(env, "ready", timeout=40)["id"]
    time.sleep(1)
    _dump(claude, "claude_box_ready")

    claude.send_text(WRAPPED, enter=False)
    _draft_refused(
        env, sid, claude, model_server, "claude_box_wrapped_draft", r"^  long draft a long draft", CLAUDE_EMPTY
    )

    claude.send_text("\\", enter=False)  # a backslash and Enter: a new row, the first one left empty
    claude.send_keys("Enter")
    claude.send_text("second row of the draft", enter=False)
    _draft_refused(
        env, sid, claude, model_server, "claude_box_second_row_draft", r"^❯\s*\n  second row of the draft", CLAUDE_EMPTY
    )

    sent = lunavect(env, "reply", sid, "reply MU")  # the prompt is empty again: the same screen takes it
    assert sent.returncode == 0, sent.stdout + sent.stderr
    model_server.wait_for(lambda r: "reply MU" in r.last_user_text(), timeout=20)
    claude.wait_for_screen("Got the reply LAMBDA", timeout=30)


def test_codex_a_draft_under_a_box_shaped_reply_is_never_typed_into(codex_tmux, codex_server) -> None:
    paths, iso, env = codex_tmux
    write_config(iso, codex_server)
    install_hooks(env)
    codex_server.script(message(CODEX_BOX_REPLY), match=lambda r: r.last_user_text() == "show me a box")
    codex_server.script(message("Got the reply LAMBDA"), match=lambda r: r.last_user_text() == "reply MU")
    tui = start_tui(paths, iso, env)
    try:
        tui.send_text("show me a box")
        tui.wait_for_screen("The end of the box reply", timeout=40)
        sid = wait_session(env, lambda s: s["state"] == "ready", timeout=30)["id"]
        time.sleep(1)
        _dump(tui, "codex_box_ready")

        tui.send_text(WRAPPED, enter=False)
        _draft_refused(
            env, sid, tui, codex_server, "codex_box_wrapped_draft", r"^  long draft a long draft", CODEX_EMPTY
        )

        tui.send_keys("C-j")  # a new row, the first one left empty
        tui.tmux("send-keys", "-t", tui.target, "-l", "second row of the draft")
        _draft_refused(
            env, sid, tui, codex_server, "codex_box_second_row_draft", r"^›\s*\n  second row of the draft", CODEX_EMPTY
        )

        sent = lunavect(env, "reply", sid, "reply MU")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        codex_server.wait_for(lambda r: r.last_user_text() == "reply MU", timeout=30)
        tui.wait_for_screen("Got the reply LAMBDA", timeout=40)
    finally:
        tui.kill()
