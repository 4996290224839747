"""Gemini CLI's screen and terminal title, read from its pane (the shapes and shared parts are
`lunavect.core.pane_reading`'s).

Observed with Gemini CLI 0.61.0 under tmux: the input box is a row ` > ` under a rule, its placeholder
`Type your message or @path/to/file` when empty, with two footer rows below (the workspace and the model); a
tool's confirmation is a box asking `Allow execution of [<tool>]?` (or to apply an edit) with numbered options
(`1. Allow once`, `2. Allow for this session`, `3. No, suggest changes (esc)`). Its terminal title is
`✋  Action Required (<folder>)` while a confirmation waits, `✦  <thought or Working…> (<folder>)` or
`⏲  Working… (<folder>)` while it works, `◇  Ready (<folder>)` otherwise; only that first sign is read.
"""

from __future__ import annotations

import re

from lunavect.core.pane_reading import Dialog, PromptReading, dialog_options, plain, screen_rows

PLACEHOLDER = "Type your message or @path/to/file"
STARTING = "Initializing..."
# A row the client writes into its history: a reply (`✦`), an error (`✕`) or a notice (`ℹ`).
_OWN_ROW = re.compile(r"^\s*[✦✕ℹ]\s", re.M)
FOOTER_ROWS = 3
_QUESTION = re.compile(r"^\s*(?:Allow execution of \[(?P<tool>[^\]]+)\]\?|(?P<edit>Apply this change\?))\s*$", re.M)
_BOX = re.compile(r"^\s*[│╭╰]\s?|\s?[│╮╯]\s*$")
_RADIO = re.compile(r"^(\s*)[●○]\s")
_HEADER = re.compile(r"^\s*\?\s+(?P<name>\S+)", re.M)
TITLE_STATES = {"✋": "waiting", "✦": "busy", "⏲": "busy", "◇": "idle"}
# A confirmation names its tool by its display name, its hooks by its name: `lunavect answer` compares the two.
TOOL_NAMES = {"Shell": "run_shell_command", "Edit": "replace", "WriteFile": "write_file", "WebFetch": "web_fetch"}


def read_title(title: str) -> str | None:
    """The state the client's terminal title shows (`waiting`, `busy`, `idle`), or None for a title that is
    not its dynamic one. The rest of the title (a folder, a thought) is not kept."""
    head = title.lstrip()[:1]
    return TITLE_STATES.get(head)


def _unboxed(text: str) -> list[str]:
    return [_RADIO.sub(r"\1", _BOX.sub("", row)) for row in text.splitlines()]


def read_dialog(screen: str) -> Dialog | None:
    """Its confirmation box on the screen, or None; its tool as the hooks name it (`run_shell_command` for the
    box's `Shell`), so that an answer goes only to the tool the session waits for."""
    rows = _unboxed(plain(screen))
    text = "\n".join(rows)
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    headers = list(_HEADER.finditer(text, 0, question.start()))
    shown = question.group("tool") or (headers[-1].group("name") if headers else "Edit")
    tool = TOOL_NAMES.get(shown, shown)  # a display name not known here stays itself: answer then refuses
    options = dialog_options([row for row in text[question.end() :].splitlines()[1:] if row.strip()])
    return Dialog(tool, options) if options else None


def _starting(text: str) -> bool:
    """It still starts: its "Initializing..." notice (a prompt typed meanwhile is queued) has nothing of its own
    after it. The notice stays in the history for good, so once a reply, an error or a notice of the client's
    follows it, the client has long started."""
    at = text.rfind(STARTING)
    return at >= 0 and _OWN_ROW.search(text, at + len(STARTING)) is None


def read_prompt(screen: str) -> PromptReading:
    """Its input box: the bottom-most ` > ` row, then nothing but its footer. The placeholder is an empty box;
    anything else typed there is a draft."""
    text = plain(screen)
    if _QUESTION.search("\n".join(_unboxed(text))):
        return PromptReading(None, "it shows a confirmation")
    if _starting(text):
        return PromptReading(None, "it is still starting")
    rows = screen_rows(text)
    row = next((i for i in range(len(rows) - 1, -1, -1) if rows[i].lstrip().startswith(">")), None)
    if row is None:
        return PromptReading(None, "no input box is on the screen")
    footer = rows[row + 1 :]
    if len(footer) > FOOTER_ROWS:
        return PromptReading(None, "rows other than the footer stand below its input box")
    typed = rows[row].lstrip()[1:].strip()
    return PromptReading(typed == PLACEHOLDER or not typed)
