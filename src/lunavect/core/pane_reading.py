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
# The options that allow a tool from now on, as the clients word them (recorded from Claude Code 2.1.328 and
# Codex 0.169.0): "don't ask again" for a command (Claude Code writes `don’t ask again for: <command>`, with a
# typographic apostrophe and a colon), "always allow" access to a folder, accept edits for the session (Claude
# Code's only "from now on" for an edit or a new file), and Codex's "for this session".
_ALLOW_ALWAYS = (
    "yes, and always allow",
    "yes, and don't ask again",
    "yes, and switch to accept edits",
    "allow for this session",
)
# Apostrophes a client may draw, read as the plain one.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_OPTION = re.compile(r"^\s*(?:[❯›>]\s*)?(?P<key>\d)\.\s+(?P<label>.+?)(?:\s+\((?P<hint>esc|[a-z])\))?\s*$")


def plain(screen: str) -> str:
    return _ESCAPE.sub("", screen)


def _drawn(line: str) -> list[tuple[str, bool, bool]]:
    """Each character a line draws, with whether it is dim (SGR 2) and in reverse video (SGR 7, the cursor)."""
    drawn: list[tuple[str, bool, bool]] = []
    dim = reverse = False
    at = 0
    for match in _ESCAPE.finditer(line):
        drawn += [(ch, dim, reverse) for ch in line[at : match.start()]]
        at = match.end()
        sgr = _SGR.fullmatch(match.group(0))
        if sgr is None:
            continue
        for param in sgr.group(1).split(";") if sgr.group(1) else ["0"]:
            if param in ("0", ""):
                dim = reverse = False
            elif param == "2":
                dim = True
            elif param == "22":
                dim = False
            elif param == "7":
                reverse = True
            elif param == "27":
                reverse = False
    return drawn + [(ch, dim, reverse) for ch in line[at:]]


def typed(line: str) -> bool:
    """Whether a prompt line (with its escapes) holds typed text: a placeholder is drawn dimmed (SGR 2), its
    first character under the cursor (reverse video) when the cursor stands on it."""
    drawn = _drawn(line)
    mark = next((i for i, (ch, _dim, _rev) in enumerate(drawn) if ch in "❯›"), None)
    if mark is None:
        return False
    shown = [(ch, dim, rev) for ch, dim, rev in drawn[mark + 1 :] if not ch.isspace()]
    if not shown:
        return False
    if shown[0][2] and len(shown) > 1:  # the cursor on the first character: the rest says which it is
        shown = shown[1:]
    return not shown[0][1]


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
            words = label.lower().translate(_APOSTROPHES)
            if answer == "allow" and (
                words in ("yes", "allow once", "yes, allow once") or words.startswith("yes, proceed")
            ):
                return key
            if answer == "allow-always" and words.startswith(_ALLOW_ALWAYS):
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
