"""Claude Code's screen, read from the text of its pane: its input box waiting for the person, or its permission
dialog with the tool it asks for (the shapes and shared parts are `lunavect.core.pane_reading`'s)."""

from __future__ import annotations

import re

from lunavect.core.pane_reading import Dialog, PromptReading, dialog_options, plain, prompt_at, screen_rows

# A rule of Claude Code's input box: a full row of `─` from the first column. What a reply or a tool's output
# draws is indented (Claude Code 2.1.328), so a box-shaped block printed there does not start a row with a
# rule; and only the bottom-most box is read in any case.
_RULE = re.compile(r"^─{10,}$")
# Below the input box only its footer: its mode line and hints, and a status line of a few rows (Claude Code
# indents both). More rows, or one from the first column, mean something else stands below the box (a menu,
# another program's output): not a prompt to type into.
FOOTER_ROWS = 8
_QUESTION = re.compile(r"^\s*Do you want to (?:proceed|make this edit to .+|create .+)\?\s*$", re.M)
# The header Claude Code draws above a permission question, by the tool it asks for.
DIALOG_TOOLS = {"Bash command": "Bash", "Edit file": "Edit", "Create file": "Write", "Write file": "Write"}


def read_prompt(screen: str) -> PromptReading:
    """Claude Code's input box: only the bottom-most rule, the `❯` row (and the rows a longer draft wraps
    onto), a rule, with nothing but the footer below. `screen` may hold colour escapes."""
    text = plain(screen)
    if _QUESTION.search(text):
        return PromptReading(None, "it shows a permission question")
    rows = screen_rows(text)
    lower = next((i for i in range(len(rows) - 1, -1, -1) if _RULE.match(rows[i])), None)
    if lower is None:
        return PromptReading(None, "no input box is on the screen")
    footer = rows[lower + 1 :]
    if len(footer) > FOOTER_ROWS or any(row.startswith(("❯", "─")) for row in footer):
        return PromptReading(None, "rows other than the footer stand below its input box")
    upper = next((i for i in range(lower - 1, -1, -1) if _RULE.match(rows[i])), None)
    if upper is None or upper == lower - 1 or not rows[upper + 1].startswith("❯"):
        return PromptReading(None, "its bottom-most box is not the input box")
    return prompt_at(screen, upper + 1, lower - upper - 1)


def read_dialog(screen: str) -> Dialog | None:
    """Claude Code's permission dialog on the screen, or None."""
    text = plain(screen)
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    above = text[: question.start()].splitlines()
    rules = [i for i, line in enumerate(above) if re.match(r"^─{10,}\s*$", line)]
    if not rules:
        return None
    header = next((line.strip() for line in above[rules[-1] + 1 :] if line.strip()), "")
    tool = DIALOG_TOOLS.get(header)
    options = dialog_options(text[question.end() :].splitlines()[1:])
    if tool is None or not options:
        return None
    return Dialog(tool, options)


# What Claude Code 2.1.328 draws in its input box after a turn that failed (a 429 or 529 after its retries): its
# own invitation to send the message again, as the empty prompt's placeholder.
_RESEND = re.compile(r"^❯\s*Resend your message to try again\s*$", re.M)


def offers_resend(screen: str) -> bool:
    """Whether the screen shows Claude Code's invitation to resend a message after a failed turn."""
    return _RESEND.search(plain(screen)) is not None
