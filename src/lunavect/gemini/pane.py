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
FOOTER_ROWS = 3
_QUESTION = re.compile(r"^\s*(?:Allow execution of \[(?P<tool>[^\]]+)\]\?|(?P<edit>Apply this change\?))\s*$", re.M)
_BOX = re.compile(r"^\s*[│╭╰]\s?|\s?[│╮╯]\s*$")
_RADIO = re.compile(r"^(\s*)[●○]\s")
TITLE_STATES = {"✋": "waiting", "✦": "busy", "⏲": "busy", "◇": "idle"}


def read_title(title: str) -> str | None:
    """The state the client's terminal title shows (`waiting`, `busy`, `idle`), or None for a title that is
    not its dynamic one. The rest of the title (a folder, a thought) is not kept."""
    head = title.lstrip()[:1]
    return TITLE_STATES.get(head)


def _unboxed(text: str) -> list[str]:
    return [_RADIO.sub(r"\1", _BOX.sub("", row)) for row in text.splitlines()]


def read_dialog(screen: str) -> Dialog | None:
    """Its confirmation box on the screen, or None."""
    rows = _unboxed(plain(screen))
    text = "\n".join(rows)
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    tool = question.group("tool") or "Edit"
    options = dialog_options([row for row in text[question.end() :].splitlines()[1:] if row.strip()])
    return Dialog(tool, options) if options else None


def read_prompt(screen: str) -> PromptReading:
    """Its input box: the bottom-most ` > ` row, then nothing but its footer. The placeholder is an empty box;
    anything else typed there is a draft."""
    text = plain(screen)
    if _QUESTION.search("\n".join(_unboxed(text))):
        return PromptReading(None, "it shows a confirmation")
    if "Initializing..." in text:
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
