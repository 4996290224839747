"""Codex's screen, read from the text of its pane: its composer waiting for the person, or its approval dialog
(the shapes and shared parts are `lunavect.core.pane_reading`'s)."""

from __future__ import annotations

import re

from lunavect.core.pane_reading import Dialog, PromptReading, dialog_options, plain, prompt_at, screen_rows

# Below the composer only its footer, a few rows: more mean something else stands below it.
FOOTER_ROWS = 3
_QUESTION = re.compile(
    r"^\s*(?:Would you like to run the following command\?|Would you like to make the following edits\?)\s*$",
    re.M,
)


def read_prompt(screen: str) -> PromptReading:
    """Codex's composer: the bottom-most row that starts with `›` (the conversation above echoes earlier
    prompts), the rows a longer draft runs onto, one blank row, then nothing but the footer. Read it with
    escapes (`capture-pane -e`): its placeholder ("Ask Codex to do anything") differs from a draft only by
    being dimmed."""
    text = plain(screen)
    if _QUESTION.search(text):
        return PromptReading(None, "it shows an approval question")
    if "OpenAI Codex" not in text:
        return PromptReading(None, "no Codex screen is shown")
    rows = screen_rows(text)
    row = next((i for i in range(len(rows) - 1, -1, -1) if rows[i].startswith("›")), None)
    if row is None:
        return PromptReading(None, "no composer is on the screen")
    draft_rows = 1
    while row + draft_rows < len(rows) and rows[row + draft_rows]:
        draft_rows += 1  # the draft runs on until the blank row above the footer
    footer = rows[row + draft_rows + 1 :]
    if len(footer) > FOOTER_ROWS or not all(footer):
        return PromptReading(None, "rows other than the footer stand below its composer")
    return prompt_at(screen, row, draft_rows)


def read_dialog(screen: str) -> Dialog | None:
    """Codex's approval dialog on the screen, or None. Codex asks for commands (`Bash` as its hooks name an
    `exec_command`) and for edits (`apply_patch`)."""
    text = plain(screen)
    questions = list(_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    tool = "Bash" if "command" in question.group(0) else "apply_patch"
    options = dialog_options(text[question.end() :].splitlines()[1:])
    return Dialog(tool, options) if options else None
