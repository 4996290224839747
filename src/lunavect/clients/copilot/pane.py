"""GitHub Copilot CLI's screen, read from its pane (the shapes and shared parts are `lunavect.core.pane_reading`'s).

Observed with Copilot CLI 1.0.102 under tmux: the input row `❯ ` sits between two rules, above a footer row
(`← open sidebar · Interactive · Manual Approval · / commands · ? help · …` and the model, or the working line);
while it starts, the footer reads `● Loading: …`. A shell command's approval is a box asking `Do you want to run
this command?` with `1. Yes`, `2. Yes, and don't ask again for …` and `3. No, and tell Copilot what to do
differently (Esc to stop)`: a digit chooses options 1 and 2 at once, option 3 opens a line for the person's
feedback, and Esc denies (and stops the turn). Other approvals (a path, an edit) ask `Do you want to allow
this?` and name no tool: an answer goes only to a shell command's. The `ask_user` form reads `Copilot needs
information.` above its choices.
"""

from __future__ import annotations

import re

from lunavect.core.pane_reading import Dialog, PromptReading, plain, screen_rows, typed

_RULE = re.compile(r"^\s*─{10,}\s*$")
_BOX = re.compile(r"^\s*[│╭╰]\s?|\s?[│╮╯]\s*$")
# The question is a row of the approval's box (a reply that asks the same is no box's row).
_QUESTION = re.compile(r"^\s*│\s*(?P<question>Do you want to (?:run this command|allow this)\?)\s*│\s*$", re.M)
_NAVIGATION = "to navigate · enter to select"
_OPTION = re.compile(r"^\s*(?:❯\s*)?(?P<key>\d)\.\s+(?P<label>.+?)\s*$")
_ESC_HINT = re.compile(r"\s*\(Esc(?: to stop)?\)\s*$")
FORM = "Copilot needs information."
LOADING = "● Loading:"
# What each approval's question asks for, as the hooks name the tool.
TOOLS = {"Do you want to run this command?": "bash"}
# Rows the footer takes below the input's lower rule.
FOOTER_ROWS = 2


def _unboxed(text: str) -> list[str]:
    return [_BOX.sub("", row) for row in text.splitlines()]


def read_dialog(screen: str) -> Dialog | None:
    """Its approval box on the screen, or None; its tool as the hooks name it when the question tells it (a shell
    command's: `bash`), so that an answer goes only to the tool the session waits for."""
    boxed = plain(screen)
    questions = list(_QUESTION.finditer(boxed))
    if not questions or _NAVIGATION not in boxed[questions[-1].end() :]:
        return None
    question = questions[-1]
    options: dict[str, str] = {}
    for row in _unboxed(boxed[question.end() :]):
        match = _OPTION.match(row)
        if match is None:
            if options and row.strip():
                break
            continue
        label = match.group("label")
        key = "Escape" if _ESC_HINT.search(label) else match.group("key")
        options[key] = _ESC_HINT.sub("", label)
    return Dialog(TOOLS.get(question.group("question")), options) if options else None


def read_prompt(screen: str) -> PromptReading:
    """Its input row: the bottom-most `❯` row between two rules, with nothing but its footer below. Anything
    typed there is a draft."""
    text = plain(screen)
    if _QUESTION.search(text):
        return PromptReading(None, "it shows an approval")
    if FORM in text:
        return PromptReading(None, "it shows a question form")
    rows = screen_rows(text)
    rules = [i for i, row in enumerate(rows) if _RULE.match(row)]
    if len(rules) < 2 or len(rows) - rules[-1] - 1 > FOOTER_ROWS:
        return PromptReading(None, "no input box is on the screen")
    if any(row.lstrip().startswith(LOADING) for row in rows[rules[-1] + 1 :]):
        return PromptReading(None, "it is still starting")
    inside = list(range(rules[-2] + 1, rules[-1]))
    if not inside or not rows[inside[0]].lstrip().startswith("❯"):
        return PromptReading(None, "no input box is on the screen")
    if len(inside) > 1:
        return PromptReading(False)  # a draft that runs onto more rows
    return PromptReading(not typed(screen.split("\n")[inside[0]]))
