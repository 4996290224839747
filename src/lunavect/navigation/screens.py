"""What a client's terminal screen shows, read from the text of a pane (tmux `capture-pane`): its prompt
waiting for the person, or a permission dialog with its options.

Typing into a terminal is only safe when the screen proves what will receive the keys, so these readers are
strict: anything they do not recognise is None, and the caller refuses. Pure functions over text, tested on
screens the real clients drew.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Claude Code's input box: a rule, the `❯` line (what the person has typed so far), another rule.
_CLAUDE_BOX = re.compile(r"^─{10,}[^\S\n]*\n❯[^\S\n]?(?P<draft>.*)\n─{10,}", re.M)
# Codex's composer: the last line that starts with `›` (the conversation above echoes earlier prompts).
_CODEX_PROMPT = re.compile(r"^›[^\S\n]?(?P<draft>.*)$", re.M)
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


def _prompt_line(screen: str, found: re.Match[str] | None, text: str) -> bool | None:
    if found is None:
        return None
    row = text[: found.start()].count("\n") + (1 if text[found.start()] == "─" else 0)
    lines = screen.splitlines()
    return None if row >= len(lines) else not _typed(lines[row])


def claude_prompt_empty(screen: str) -> bool | None:
    """True when Claude Code's input box waits with nothing typed, False when it holds a draft, None when
    the screen shows no input box (a dialog, another program). `screen` may hold colour escapes."""
    text = plain(screen)
    if _CLAUDE_QUESTION.search(text):
        return None
    boxes = list(_CLAUDE_BOX.finditer(text))
    return _prompt_line(screen, boxes[-1] if boxes else None, text)


def codex_prompt_empty(screen: str) -> bool | None:
    """The same for Codex's composer; read it with escapes (`capture-pane -e`), since its placeholder
    ("Ask Codex to do anything") differs from a draft only by being dimmed."""
    text = plain(screen)
    if _CODEX_QUESTION.search(text) or "OpenAI Codex" not in text:
        return None
    lines = list(_CODEX_PROMPT.finditer(text))
    return _prompt_line(screen, lines[-1] if lines else None, text)


def prompt_empty(provider: str, screen: str) -> bool | None:
    return claude_prompt_empty(screen) if provider == "claude" else codex_prompt_empty(screen)


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
