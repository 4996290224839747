"""Every session has the title its client shows, with the real Claude Code 2.1.328 and Codex 0.169.0: a first
prompt that is a slash command with arguments, a pasted file, a session renamed in the client, a session
resumed later, and sessions begun with local commands, a `/clear`, a shell command or an image, checked against
the client's own resume picker. Read without hooks, from the clients' own files, through `lunavect list --json`."""

from __future__ import annotations

import re
import time

import pytest
from anthropic_server import text
from claude_hookless_support import lunavect_list, remove_hooks, session_of, wait_session
from claude_tmux import IsoHome


@pytest.fixture
def hookless(iso_home: IsoHome) -> IsoHome:
    remove_hooks(iso_home)
    return iso_home


def test_a_slash_command_then_a_rename_then_a_resume(hookless, claude_tmux, model_server):
    commands = hookless.work / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review this code carefully: $ARGUMENTS\n")
    model_server.script(text("Reviewed."), text("Second."), text("Third."))
    claude = claude_tmux("--permission-mode", "acceptEdits")
    session = session_of(claude)
    lunavect_list(hookless)

    claude.send_text("/review the parser module")
    claude.wait_for_screen("Reviewed.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and not r["untitled"])
    assert row["title"] == "/review the parser module"  # the command and its arguments, as the client shows

    claude.send_text("/rename Parser review")
    claude.wait_for_screen("Session renamed to: Parser review", timeout=20)
    wait_session(hookless, session, lambda r: r["title"] == "Parser review")

    claude.send_text("/exit")
    deadline = time.monotonic() + 20
    while hookless.catalog() and time.monotonic() < deadline:
        time.sleep(0.2)
    resumed = claude_tmux("--permission-mode", "acceptEdits", "--resume", session)
    resumed.send_text("after the resume")
    resumed.wait_for_screen("Second.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and r["pid"] == resumed.pid())
    assert row["title"] == "Parser review"  # the resumed session keeps the name the person gave it


def test_a_pasted_file_as_the_first_prompt(hookless, claude_tmux, model_server):
    model_server.script(text("Pasted ok."))
    claude = claude_tmux("--permission-mode", "acceptEdits")
    session = session_of(claude)
    body = "\n".join(f"line {i} of the pasted file" for i in range(30))
    claude.tmux("set-buffer", "--", body)
    claude.tmux("paste-buffer", "-p", "-t", claude.target)
    claude.wait_for_screen(r"Pasted text", timeout=20)
    time.sleep(1)  # the Enter after a paste must not be part of it
    claude.send_keys("Enter")
    claude.wait_for_screen("Pasted ok.", timeout=40)
    row = wait_session(hookless, session, lambda r: r["state"] == "ready" and not r["untitled"])
    # The picker shows the pasted text on one line (`lastPrompt`); a row holds its first 80 characters.
    joined = " ".join(f"line {i} of the pasted file" for i in range(30))
    assert row["title"] == joined[:79] + "…"


PICKER_ROW = re.compile(r" · (/\S+)\s*$")


def picker_titles(claude_tmux, cwd) -> dict[str, set[str]]:
    """What Claude Code's own resume picker (`claude --resume`, every project: Ctrl+A) lists: its titles by
    folder (each session's title line is followed by a line ending in ` · <folder>`)."""
    picker = claude_tmux("--resume", cwd=cwd, wait_ready=False, height=120)
    picker.wait_for_screen("Resume session", timeout=30)
    picker.send_keys("C-a")
    picker.wait_for_screen("Ctrl\\+A to only show current repo", timeout=30)
    lines = picker.capture().splitlines()
    found: dict[str, set[str]] = {}
    for above, line in zip(lines, lines[1:], strict=False):
        where = PICKER_ROW.search(line)
        if where:
            found.setdefault(where.group(1), set()).add(above.strip().removeprefix("❯").strip())
    picker.send_keys("Escape")
    return found


def test_titles_are_the_resume_pickers_after_commands_a_clear_a_shell_command_and_an_image(
    hookless, claude_tmux, model_server
):
    model_server.script(*(text(f"Reply {n}.") for n in range(1, 7)))
    folders = {name: hookless.work / name for name in ("commands", "clear", "bang", "image")}
    for folder in folders.values():
        folder.mkdir()

    # A session that began with local commands (`/model`, then `/goal ...`), then the person's prompt.
    commands = claude_tmux("--permission-mode", "acceptEdits", cwd=folders["commands"])
    commands.send_text("/model")
    commands.wait_for_screen("Select model", timeout=20)
    commands.answer("Enter", until_gone="Select model")
    commands.send_text("/goal make the report complete")
    commands.wait_for_screen("Goal set", timeout=20)
    # Setting a goal starts a turn toward it, which ends with the goal's own stop hook (its check asks the model,
    # whose scripted reply is no verdict): clearing it while that turn starts could lose the command's keys.
    commands.wait_for_screen(r"Ran \d+ stop hook", timeout=40)
    commands.send_text("/goal clear")
    commands.wait_for_screen("Goal cleared", timeout=60)
    commands.send_text("please write the summary")
    commands.wait_for_screen(r"Reply \d\.", timeout=40)

    cleared = claude_tmux("--permission-mode", "acceptEdits", cwd=folders["clear"])
    cleared.send_text("before the clear")
    cleared.wait_for_screen(r"Reply \d\.", timeout=40)
    cleared.send_text("/clear")
    time.sleep(1)
    cleared.send_text("after the clear")
    cleared.wait_for_screen(r"Reply \d\.", timeout=40)

    bang = claude_tmux("--permission-mode", "acceptEdits", cwd=folders["bang"])
    bang.send_text("!ls -a")
    bang.wait_for_screen(r"Reply \d\.", timeout=40)

    image = claude_tmux("--permission-mode", "acceptEdits", cwd=folders["image"])
    png = folders["image"] / "red.png"
    png.write_bytes(_png())
    image.tmux("set-buffer", "--", str(png))
    image.tmux("paste-buffer", "-p", "-t", image.target)
    image.wait_for_screen(r"\[Image #1\]", timeout=20)
    time.sleep(1)
    image.send_keys("Enter")
    image.wait_for_screen(r"Reply \d\.", timeout=40)

    for claude in (commands, cleared, bang, image):
        assert claude.exit()
    shown = picker_titles(claude_tmux, hookless.work)
    assert shown == {
        str(folders["commands"]): {"please write the summary"},
        str(folders["clear"]): {"before the clear", "after the clear"},
        str(folders["bang"]): {"! ls -a"},
        str(folders["image"]): {"[Image #1]"},
    }
    deadline = time.monotonic() + 60
    while True:
        rows = lunavect_list(hookless, "--all")
        titles: dict[str, set[str]] = {}
        for row in rows:
            titles.setdefault(row["cwd"], set()).add(row["title"])
        if titles == shown or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert titles == shown  # lunavect's rows carry the very titles the client's own picker shows


def _png() -> bytes:
    """An 8x8 red PNG: what the client attaches as `[Image #1]` when its path is pasted."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 8 for _ in range(8))
    header = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
