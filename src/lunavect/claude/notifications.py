"""Claude Code's task notifications: how its runtime tells a session that background work ended.

When a background shell, agent or monitor stops, Claude Code queues a `<task-notification>` block and
later delivers it to the session as a prompt. One text may hold several notifications (an end-of-session
sweep names every task it stopped), and one notification may name several tasks. Only ids and the status
are read: the summary and result are the agent's words, which lunavect never keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN_TAG = "<task-notification>"
# Ids longer than this are not ids the runtime writes; they are dropped rather than stored.
MAX_ID_CHARS = 200

_BLOCK_RE = re.compile(r"<task-notification>(.*?)</task-notification>", re.DOTALL)
_TAG_RES = {name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL) for name in ("task-id", "tool-use-id", "status")}
# The pointer the runtime appends after a shell notification; it is part of the runtime's own text.
_OUTPUT_POINTER_RE = re.compile(r"Read the output file to retrieve the result:[^\n]*")


@dataclass(frozen=True)
class TaskNotification:
    """One `<task-notification>`: the tasks it names, the tool call that started the run, how it ended."""

    task_ids: tuple[str, ...]
    tool_use_id: str | None
    status: str | None


def _values(block: str, tag: str) -> list[str]:
    found = []
    for raw in _TAG_RES[tag].findall(block):
        value = raw.strip()
        if value and len(value) <= MAX_ID_CHARS:
            found.append(value)
    return found


def task_notifications(text: object) -> list[TaskNotification]:
    """Every notification `text` holds, in order; [] for anything that is not text or holds none."""
    if not isinstance(text, str) or OPEN_TAG not in text:
        return []
    notes = []
    for block in _BLOCK_RE.findall(text):
        tool_use_ids = _values(block, "tool-use-id")
        statuses = _values(block, "status")
        notes.append(
            TaskNotification(
                task_ids=tuple(_values(block, "task-id")),
                tool_use_id=tool_use_ids[0] if tool_use_ids else None,
                status=statuses[0].lower() if statuses else None,
            )
        )
    return notes


def only_notifications(text: object) -> bool:
    """True when `text` is notifications and nothing else (the runtime's output pointer aside).

    A person's message that quotes a notification is not the runtime speaking; a text that is nothing but
    notifications is.
    """
    if not isinstance(text, str) or not text.lstrip().startswith(OPEN_TAG):
        return False
    rest = _OUTPUT_POINTER_RE.sub("", _BLOCK_RE.sub("", text))
    return not rest.strip()


def ended_state(status: str | None) -> str:
    """The state a run ends in, by its notification's status: anything but success or failure stopped it
    (killed, stopped, or unfinished when its session ended)."""
    if status == "completed":
        return "completed"
    if status in ("failed", "error"):
        return "failed"
    return "stopped"
