"""Qwen Code's screen and terminal title, read from its pane (the shapes and shared parts are
`lunavect.core.pane_reading`'s).

Observed with Qwen Code 0.24.4 under tmux: the input box is a row `>` between two rules, its placeholder
`Type your message or @path/to/file` when empty, with its footer below (`➜ <folder> · <model>`, the approval
mode). A tool's approval is a row `? <tool's display name> <what it does> ←`, the question (`Allow execution
of: '<commands>'?` for a command) and numbered options (`› 1. Yes, allow once`, `2. Always allow … in this
project`, `3. Always allow … for this user`, `4. No, suggest changes (esc)`), then `Waiting for user
confirmation...`; its question tool draws the same header (`? AskUserQuestion …`) over the choices it offers.
Its terminal title (`ui.showStatusInTitle`, on by default) is `Qwen - <folder>` when idle, `◐︎ Qwen - <folder>`
(a turning half-circle) while it works and `✳︎ Qwen - <folder>` while an approval or a question waits.
"""

from __future__ import annotations

import re

from lunavect.core.pane_reading import Dialog, PromptReading, dialog_options, plain, screen_rows

PLACEHOLDER = "Type your message or @path/to/file"
WAITING = "Waiting for user confirmation..."
_RULE = re.compile(r"^\s*─{10,}\s*$")
_HEADER = re.compile(r"^\s*\?\s+(?P<name>\S+)\s.*←\s*$", re.M)
_QUESTION = re.compile(r"^\s*Allow execution of: .*\?\s*$", re.M)
# Rows its footer takes below the input box's lower rule (the folder and model, the approval mode, a notice).
FOOTER_ROWS = 3
TITLE = "Qwen - "
TITLE_STATES = {"✳": "waiting", "◐": "busy", "◓": "busy", "◑": "busy", "◒": "busy"}
# An approval names its tool by its display name, the hooks by its name: `lunavect answer` compares the two.
TOOL_NAMES = {
    "Shell": "run_shell_command",
    "Edit": "edit",
    "WriteFile": "write_file",
    "WebFetch": "web_fetch",
    "AskUserQuestion": "ask_user_question",
}


def read_title(title: str) -> str | None:
    """The state its terminal title shows (`waiting`, `busy`, `idle`), or None for a title that is not its own.
    The rest of the title (the folder) is not kept."""
    text = title.strip()
    if text.startswith(TITLE):
        return "idle"
    head, _, rest = text.partition(" ")
    if rest.startswith(TITLE) and head[:1] in TITLE_STATES:
        return TITLE_STATES[head[:1]]
    return None


def read_dialog(screen: str) -> Dialog | None:
    """Its approval on the screen, or None; its tool as the hooks name it (`run_shell_command` for the header's
    `Shell`), so that an answer goes only to the tool the session waits for."""
    text = plain(screen)
    headers = list(_HEADER.finditer(text))
    if not headers or WAITING not in text[headers[-1].end() :]:
        return None
    header = headers[-1]
    question = _QUESTION.search(text, header.end())
    if question is None:
        return None  # a question to the person, not an approval
    shown = header.group("name")
    options = dialog_options([row for row in text[question.end() :].splitlines()[1:] if row.strip()])
    return Dialog(TOOL_NAMES.get(shown, shown), options) if options else None


def read_prompt(screen: str) -> PromptReading:
    """Its input box: the bottom-most `>` row between two rules, with nothing but its footer below. The
    placeholder is an empty box; anything else typed there is a draft."""
    text = plain(screen)
    if WAITING in text and _HEADER.search(text):
        return PromptReading(None, "it shows an approval or a question")
    rows = screen_rows(text)
    rules = [i for i, row in enumerate(rows) if _RULE.match(row)]
    if len(rules) < 2 or len(rows) - rules[-1] - 1 > FOOTER_ROWS:
        return PromptReading(None, "no input box is on the screen")
    inside = list(range(rules[-2] + 1, rules[-1]))
    if not inside or not rows[inside[0]].lstrip().startswith(">"):
        return PromptReading(None, "no input box is on the screen")
    if len(inside) > 1:
        return PromptReading(False)  # a draft that runs onto more rows
    typed = rows[inside[0]].lstrip()[1:].strip()
    return PromptReading(typed == PLACEHOLDER or not typed)
