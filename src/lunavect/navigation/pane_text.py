"""What a client's terminal screen shows, read from the text of a pane (tmux `capture-pane`): its prompt
waiting for the person, or a permission dialog with its options.

Typing into a terminal is only safe when the screen proves what will receive the keys, so these readers are
strict: anything they do not recognise is None, and the caller refuses. Pure functions over text, tested on
screens the real clients drew.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A rule of Claude Code's input box: a full row of `─` from the first column. What a reply or a tool's output
# draws is indented (Claude Code 2.1.328), so a box-shaped block printed there does not start a row with a
# rule; and only the bottom-most box is read in any case.
_RULE = re.compile(r"^─{10,}$")
# Below the input box only the client's footer: its mode line and hints, and a status line of a few rows
# (Claude Code indents both). More rows, or one from the first column, mean something else stands below the
# box (a menu, another program's output): not a prompt to type into.
CLAUDE_FOOTER_ROWS = 8
CODEX_FOOTER_ROWS = 3
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_CLAUDE_QUESTION = re.compile(r"^\s*Do you want to (?:proceed|make this edit to .+|create .+)\?\s*$", re.M)
_CODEX_QUESTION = re.compile(
    r"^\s*(?:Would you like to run the following command\?|Would you like to make the following edits\?)\s*$",
    re.M,
)
_OPTION = re.compile(r"^\s*(?:[❯›>]\s*)?(?P<key>\d)\.\s+(?P<label>.+?)(?:\s+\((?P<hint>esc|[a-z])\))?\s*$")
# The header Claude Code draws above a permission question, by the tool it asks for.
CLAUDE_DIALOG_TOOLS = {"Bash command": "Bash", "Edit file": "Edit", "Create file": "Write", "Write file": "Write"}


def plain(screen: str) -> str:
    return _ESCAPE.sub("", screen)


def _typed(line: str) -> bool:
    """Whether a prompt line (with its escapes) holds typed text: a placeholder is drawn dimmed (SGR 2)."""
    visible = plain(line).partition("❯" if "❯" in plain(line) else "›")[2].strip()
    if not visible:
        return False
    dim = False
    for match in _SGR.finditer(line[: line.find(visible[0], line.find("❯" if "❯" in line else "›") + 1)]):
        params = match.group(1).split(";") if match.group(1) else ["0"]
        if "0" in params or "" in params:
            dim = False
        if "2" in params:
            dim = True
        if "22" in params:
            dim = False
    return not dim


@dataclass(frozen=True)
class PromptReading:
    """What the bottom of a client's screen shows where the person types: `empty` is True when the prompt
    waits with nothing typed, False when it holds a draft, None when no prompt is recognised (`why` says
    what was seen instead, for the refusal)."""

    empty: bool | None
    why: str = ""


def _rows(text: str) -> list[str]:
    """The screen's rows without trailing spaces and without the blank rows below the last drawn one."""
    rows = [row.rstrip() for row in text.split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _reading(screen: str, row: int, draft_rows: int) -> PromptReading:
    """A prompt on `row` of the screen (with its escapes), whose draft takes `draft_rows` rows."""
    lines = screen.split("\n")
    if draft_rows > 1 or row >= len(lines):
        return PromptReading(False)  # a draft that wraps or runs onto more lines: typed text, whatever row 1 shows
    return PromptReading(not _typed(lines[row]))


def read_claude_prompt(screen: str) -> PromptReading:
    """Claude Code's input box: only the bottom-most rule, the `❯` row (and the rows a longer draft wraps
    onto), a rule, with nothing but the footer below. `screen` may hold colour escapes."""
    text = plain(screen)
    if _CLAUDE_QUESTION.search(text):
        return PromptReading(None, "it shows a permission question")
    rows = _rows(text)
    lower = next((i for i in range(len(rows) - 1, -1, -1) if _RULE.match(rows[i])), None)
    if lower is None:
        return PromptReading(None, "no input box is on the screen")
    footer = rows[lower + 1 :]
    if len(footer) > CLAUDE_FOOTER_ROWS or any(row.startswith(("❯", "─")) for row in footer):
        return PromptReading(None, "rows other than the footer stand below its input box")
    upper = next((i for i in range(lower - 1, -1, -1) if _RULE.match(rows[i])), None)
    if upper is None or upper == lower - 1 or not rows[upper + 1].startswith("❯"):
        return PromptReading(None, "its bottom-most box is not the input box")
    return _reading(screen, upper + 1, lower - upper - 1)


def read_codex_prompt(screen: str) -> PromptReading:
    """Codex's composer: the bottom-most row that starts with `›` (the conversation above echoes earlier
    prompts), the rows a longer draft runs onto, one blank row, then nothing but the footer. Read it with
    escapes (`capture-pane -e`): its placeholder ("Ask Codex to do anything") differs from a draft only by
    being dimmed."""
    text = plain(screen)
    if _CODEX_QUESTION.search(text):
        return PromptReading(None, "it shows an approval question")
    if "OpenAI Codex" not in text:
        return PromptReading(None, "no Codex screen is shown")
    rows = _rows(text)
    row = next((i for i in range(len(rows) - 1, -1, -1) if rows[i].startswith("›")), None)
    if row is None:
        return PromptReading(None, "no composer is on the screen")
    draft_rows = 1
    while row + draft_rows < len(rows) and rows[row + draft_rows]:
        draft_rows += 1  # the draft runs on until the blank row above the footer
    footer = rows[row + draft_rows + 1 :]
    if len(footer) > CODEX_FOOTER_ROWS or not all(footer):
        return PromptReading(None, "rows other than the footer stand below its composer")
    return _reading(screen, row, draft_rows)


def read_prompt(provider: str, screen: str) -> PromptReading:
    return read_claude_prompt(screen) if provider == "claude" else read_codex_prompt(screen)


def prompt_empty(provider: str, screen: str) -> bool | None:
    """True when the client's prompt waits with nothing typed, False when it holds a draft, None when the
    screen shows no prompt (a dialog, another program)."""
    return read_prompt(provider, screen).empty


@dataclass(frozen=True)
class Dialog:
    """A permission dialog: the tool it asks for and its options, by the key that chooses each (the key the
    option names, as Codex's `(y)`, else its number)."""

    tool: str | None
    options: dict[str, str]

    def key(self, answer: str) -> str | None:
        """The dialog's own key for `allow`, `allow-always` or `deny`, or None when it offers no such option."""
        for key, label in self.options.items():
            words = label.lower()
            if answer == "allow" and (words == "yes" or words.startswith("yes, proceed")):
                return key
            if answer == "allow-always" and (
                words.startswith("yes, and always allow") or words.startswith("yes, and don't ask again")
            ):
                return key
            if answer == "deny" and (words == "no" or words.startswith("no,") or words.startswith("no ")):
                return key
        return None


def _options(lines: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for line in lines:
        match = _OPTION.match(line)
        if match:
            hint = match.group("hint")
            key = "Escape" if hint == "esc" else hint or match.group("key")
            options[key] = match.group("label")
        elif options and line.strip() and not line.startswith("   "):
            break
    return options


def claude_dialog(screen: str) -> Dialog | None:
    """Claude Code's permission dialog on the screen, or None."""
    text = plain(screen)
    questions = list(_CLAUDE_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    above = text[: question.start()].splitlines()
    rules = [i for i, line in enumerate(above) if re.match(r"^─{10,}\s*$", line)]
    if not rules:
        return None
    header = next((line.strip() for line in above[rules[-1] + 1 :] if line.strip()), "")
    tool = CLAUDE_DIALOG_TOOLS.get(header)
    options = _options(text[question.end() :].splitlines()[1:])
    if tool is None or not options:
        return None
    return Dialog(tool, options)


def codex_dialog(screen: str) -> Dialog | None:
    """Codex's approval dialog on the screen, or None. Codex asks for commands (`Bash` as its hooks name an
    `exec_command`) and for edits (`apply_patch`)."""
    text = plain(screen)
    questions = list(_CODEX_QUESTION.finditer(text))
    if not questions:
        return None
    question = questions[-1]
    tool = "Bash" if "command" in question.group(0) else "apply_patch"
    options = _options(text[question.end() :].splitlines()[1:])
    return Dialog(tool, options) if options else None


def dialog(provider: str, screen: str) -> Dialog | None:
    return claude_dialog(screen) if provider == "claude" else codex_dialog(screen)
