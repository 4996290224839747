"""The title Claude Code itself shows for a session whose first prompt is not plain text.

Observed with Claude Code 2.1.328: a custom slash command is written as `<command-message>review</command-
message><command-name>/review</command-name><command-args>the parser</command-args>` (the client lists the
session as "/review the parser"); a pasted file arrives wrapped in `<pasted_content id="…">` (the client lists
its text); an image-only prompt has no text block at all (the client's own label for it is "[Image #1]").
Only the title is kept; the rest of the prompt is dropped where it is read.
"""

from __future__ import annotations

IMAGE_TITLE = "[Image #1]"
_PASTED_OPEN, _PASTED_CLOSE = "<pasted_content", "</pasted_content>"


def _tag(text: str, name: str) -> str:
    opening, closing = f"<{name}>", f"</{name}>"
    start = text.find(opening)
    if start < 0:
        return ""
    start += len(opening)
    end = text.find(closing, start)
    return text[start : end if end >= 0 else len(text)].strip()


def is_command(text: str) -> bool:
    return text.lstrip().startswith(("<command-name>", "<command-message>"))


def command_text(text: str) -> str | None:
    """ "/name args" for a slash command record, as the client shows it."""
    name = _tag(text, "command-name") or _tag(text, "command-message")
    if not name:
        return None
    if not name.startswith("/"):
        name = "/" + name
    args = _tag(text, "command-args")
    return f"{name} {args}" if args else name


def without_paste_marks(text: str) -> str:
    """The prompt with its pasted files' wrappers removed, their contents kept."""
    if _PASTED_OPEN not in text:
        return text
    parts = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(_PASTED_OPEN) and stripped.endswith(">") or stripped == _PASTED_CLOSE:
            continue
        parts.append(line)
    return "\n".join(parts)


# What a title may be: one line, as short as the client's session list shows it.
TITLE_CHARS = 80


def one_line(text: str, limit: int = TITLE_CHARS) -> str | None:
    """The first non-empty line of `text`, whitespace collapsed and cut to `limit` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return None


def of(value: object) -> str | None:
    """A title from a field the client wrote (a name, a generated title, a summary)."""
    return one_line(value) if isinstance(value, str) else None
