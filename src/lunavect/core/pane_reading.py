"""What a client's terminal screen shows where the person types, and the readings of it every client's reader
gives: its prompt waiting (`PromptReading`), or a permission dialog with its options (`Dialog`).

Typing into a terminal is only safe when the screen proves what will receive the keys, so the readers (each
client's own: `lunavect.clients.claude.pane`, `lunavect.clients.codex.pane`, reached through its face) are strict: anything
they do not recognise is None, and the caller refuses. Pure functions over the text of a pane (tmux
`capture-pane`), tested on screens the real clients drew; these are the parts they share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_OPTION = re.compile(r"^\s*(?:[❯›>]\s*)?(?P<key>\d)\.\s+(?P<label>.+?)(?:\s+\((?P<hint>esc|[a-z])\))?\s*$")


def plain(screen: str) -> str:
    return _ESCAPE.sub("", screen)


def typed(line: str) -> bool:
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


def screen_rows(text: str) -> list[str]:
    """The screen's rows without trailing spaces and without the blank rows below the last drawn one."""
    rows = [row.rstrip() for row in text.split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def prompt_at(screen: str, row: int, draft_rows: int) -> PromptReading:
    """A prompt on `row` of the screen (with its escapes), whose draft takes `draft_rows` rows."""
    lines = screen.split("\n")
    if draft_rows > 1 or row >= len(lines):
        return PromptReading(False)  # a draft that wraps or runs onto more lines: typed text, whatever row 1 shows
    return PromptReading(not typed(lines[row]))


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
            if answer == "allow" and (words in ("yes", "allow once") or words.startswith("yes, proceed")):
                return key
            if answer == "allow-always" and (
                words.startswith("yes, and always allow")
                or words.startswith("yes, and don't ask again")
                or words.startswith("allow for this session")
            ):
                return key
            if answer == "deny" and (words == "no" or words.startswith("no,") or words.startswith("no ")):
                return key
        return None


def dialog_options(lines: list[str]) -> dict[str, str]:
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
