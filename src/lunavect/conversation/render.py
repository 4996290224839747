"""A message as lines of text, as `lunavect show` prints it and the panel's peek draws it.

Every text a message shows was written by someone else (the person, the model, a tool), so each line goes
through lunavect.core.terminal_text here, at the one place both front ends take their lines from.
"""

from __future__ import annotations

from lunavect.conversation.message import Kind, Message
from lunavect.core.terminal_text import clean, clean_lines

MARKS = {
    Kind.PROMPT: "›",
    Kind.TEXT: "●",
    Kind.TOOL: "⏺",
    Kind.ERROR: "✗",
    Kind.COMPACTION: "⟳",
    Kind.TASK: "◆",
}
# How many lines of a result are shown under its call.
RESULT_LINES = 3


def result_lines(message: Message) -> list[str]:
    if message.result is None:
        return []
    lines = [line for line in message.result.splitlines() if line.strip()] or ["(no output)"]
    shown = [clean(line) for line in lines[:RESULT_LINES]]
    if len(lines) > RESULT_LINES:
        shown.append(f"… {len(lines) - RESULT_LINES} more lines")
    prefix = "  ⎿ error: " if message.failed else "  ⎿ "
    return [prefix + shown[0]] + ["    " + line for line in shown[1:]]


def headline(message: Message) -> str:
    """The first line of a message: its sign, then what it says (a call: its tool and summary)."""
    sign = MARKS.get(message.kind, "·")
    if message.kind == Kind.TOOL:
        return f"{sign} {clean(message.tool or 'tool')}" + (f"  {clean(message.text)}" if message.text else "")
    first, *_ = (message.text or "").splitlines() or [""]
    return f"{sign} {clean(first)}"


def render(message: Message) -> list[str]:
    """Every line of a message: a text keeps its line breaks, a call shows its result's first lines."""
    if message.kind == Kind.TOOL:
        return [headline(message), *result_lines(message)]
    sign = MARKS.get(message.kind, "·")
    lines = clean_lines(message.text).splitlines() or [""]
    return [f"{sign} {lines[0]}", *("  " + line for line in lines[1:])]


def skipped_note(count: int) -> str:
    """The one line `show` and the panel's peek say when lines of the file were skipped unread (longer than a
    window decodes, not JSON, nested deeper than any client writes): never the line, never a traceback."""
    lines, were = ("1 line", "was") if count == 1 else (f"{count} lines", "were")
    return f"{lines} of this conversation {were} skipped: too long, nested too deep or not JSON"
