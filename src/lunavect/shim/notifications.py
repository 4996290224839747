"""Claude Code's task notifications: how its runtime tells a session that background work ended.

When a background shell, agent or monitor stops, Claude Code queues a `<task-notification>` block and
later delivers it to the session as a prompt (which the hook shim sees) and records it in the transcript
(which lunavect/clients/claude reads). One text may hold several notifications (an end-of-session sweep names every
task it stopped), and one notification may name several tasks. Only ids and the status are read: the
summary and result are the agent's words, which lunavect never keeps.

This is the one parser of them, for the shim and the transcript reader alike; it lives in the shim's
package because the shim runs on the agent's hot path, so it uses string methods and no `re`.
"""

from __future__ import annotations

OPEN_TAG, CLOSE_TAG = "<task-notification>", "</task-notification>"
# The runtime appends this fixed pointer to the output file after a notification; it is the runtime's text.
OUTPUT_POINTER = "Read the output file to retrieve the result:"
# Ids longer than this are not ids the runtime writes; they are dropped rather than stored.
MAX_ID_CHARS = 200


class TaskNotification:
    """One `<task-notification>`: the tasks it names, the tool call that started the run, how it ended.

    A plain class (not a dataclass, whose import costs the shim a few milliseconds)."""

    __slots__ = ("task_ids", "tool_use_id", "status")

    def __init__(self, task_ids: tuple[str, ...], tool_use_id: str | None, status: str | None) -> None:
        self.task_ids = task_ids
        self.tool_use_id = tool_use_id
        self.status = status

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskNotification):
            return NotImplemented
        return (self.task_ids, self.tool_use_id, self.status) == (other.task_ids, other.tool_use_id, other.status)

    def __hash__(self) -> int:
        return hash((self.task_ids, self.tool_use_id, self.status))

    def __repr__(self) -> str:
        return f"TaskNotification(task_ids={self.task_ids!r}, tool_use_id={self.tool_use_id!r}, status={self.status!r})"


def _split(text: str, opening: str, closing: str) -> tuple[list[str], str]:
    """The inside of every closed `opening…closing` element of `text`, and the text outside them."""
    inside: list[str] = []
    outside: list[str] = []
    start = 0
    while True:
        begin = text.find(opening, start)
        end = text.find(closing, begin) if begin >= 0 else -1
        if begin < 0 or end < 0:
            outside.append(text[start:])
            return inside, "".join(outside)
        outside.append(text[start:begin])
        inside.append(text[begin + len(opening) : end])
        start = end + len(closing)


def _values(block: str, tag: str) -> list[str]:
    """The stripped, non-empty texts of every `<tag>…</tag>` in a block that are short enough to be ids."""
    values = (value.strip() for value in _split(block, f"<{tag}>", f"</{tag}>")[0])
    return [value for value in values if value and len(value) <= MAX_ID_CHARS]


def _note(block: str) -> TaskNotification:
    tool_use_ids = _values(block, "tool-use-id")
    statuses = _values(block, "status")
    return TaskNotification(
        task_ids=tuple(t for t in _values(block, "task-id") if " " not in t),
        tool_use_id=tool_use_ids[0] if tool_use_ids else None,
        status=statuses[0].lower() if statuses else None,
    )


def task_notifications(text: object) -> list[TaskNotification]:
    """Every notification `text` holds, in order; [] for anything that is not text or holds none."""
    if not isinstance(text, str) or OPEN_TAG not in text:
        return []
    blocks, _rest = _split(text, OPEN_TAG, CLOSE_TAG)
    return [_note(block) for block in blocks]


def only_notifications(text: object) -> bool:
    """True when `text` is notifications and nothing else (the runtime's output pointer aside).

    A person's message that quotes a notification is not the runtime speaking; a text that is nothing but
    notifications is.
    """
    if not isinstance(text, str) or not text.lstrip().startswith(OPEN_TAG):
        return False
    _blocks, rest = _split(text, OPEN_TAG, CLOSE_TAG)
    return not any(line.strip() and not line.strip().startswith(OUTPUT_POINTER) for line in rest.splitlines())


def ended_state(status: str | None) -> str:
    """The state a run ends in, by its notification's status: anything but success or failure stopped it
    (killed, stopped, or unfinished when its session ended)."""
    if status == "completed":
        return "completed"
    if status in ("failed", "error"):
        return "failed"
    return "stopped"
