"""Text from outside made safe to show on a terminal: the one helper every front end applies at its edge.

Titles, folders, ids and tool names come from files and events that other programs (or other people) write.
Printed raw, an escape sequence in one of them retitles the terminal or clears the screen, and a newline forges
a row of `lunavect list`. Each front end passes every such text through `clean` where it shows it; the store
keeps the text as it came (`list --json` escapes it as JSON does), so nothing is lost, only shown harmlessly.

Standard library only, and no lunavect import: the CLI, the panel, `watch` and every later front end import
it without importing each other.
"""

from __future__ import annotations

import unicodedata

# Shown in place of a text cut short, so the reader knows there was more.
ELLIPSIS = "…"
# Formatting characters that reorder what follows them (bidirectional overrides and isolates): shown, they
# make a title read differently from the bytes it holds.
_REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def _visible(char: str) -> str:
    """A control character as its escape, so that what was there stays readable without acting."""
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def clean(text: object, limit: int | None = None) -> str:
    """`text` as one line that a terminal shows and never obeys: every control character (C0, DEL, C1),
    line and paragraph separator and reordering mark becomes its visible escape; at most `limit` characters
    are kept (with an ellipsis), so a 128 KB id is never echoed whole. Non-strings are shown by `str`."""
    if text is None:
        return ""
    value = text if isinstance(text, str) else str(text)
    if limit is not None and len(value) > limit:
        value = value[: max(0, limit - 1)] + ELLIPSIS
    if value.isprintable() and value.isascii():
        return value
    parts = []
    for char in value:
        if char in _REORDERING or (not char.isprintable() and char != " " and _acts(char)):
            parts.append(_visible(char))
        else:
            parts.append(char)
    return "".join(parts)


def _acts(char: str) -> bool:
    """Whether a terminal may act on the character rather than draw it: controls and separators (Cc, Zl,
    Zp) do; other unprintable characters (unassigned, private use, formats like the zero-width joiner inside
    an emoji) are drawn as the terminal's font can."""
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def clean_lines(text: object, limit: int | None = None) -> str:
    """Like `clean`, but a message of several lines keeps its line breaks (each line cleaned on its own):
    for lunavect's own explanations that interpolate outside text."""
    value = "" if text is None else (text if isinstance(text, str) else str(text))
    return "\n".join(clean(line, limit) for line in value.split("\n"))
