"""What opening a session did, as one value every front end can show.

Each outcome the person can act on is distinct (the guide: a denied permission, a timeout and a missing tab
have distinct recovery messages), so the CLI, the panel's Enter and its row menu all show the same words.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Outcome(enum.StrEnum):
    FOCUSED = "focused"  # the exact tab or pane is in front
    ATTACH = "attach"  # the exact tmux pane is selected, but no tmux client shows it: `command` attaches
    RESUMED = "resumed"  # a finished session's resume command was opened or copied, as asked
    RESUME = "resume"  # a finished session: `command` resumes it (nothing was run)
    PERMISSION = "permission"  # the terminal refused to be scripted: `grant` says where to allow it
    TIMEOUT = "timeout"  # the terminal did not answer within the request limit
    GONE = "gone"  # the tab, pane or window is no longer there
    AMBIGUOUS = "ambiguous"  # several tabs or sessions fit: `candidates` names them
    UNSUPPORTED = "unsupported"  # the terminal or app cannot be scripted: `command` resumes instead
    UNAVAILABLE = "unavailable"  # cannot resume: the CLI or the project folder is missing
    FAILED = "failed"  # the terminal answered with an error of its own


# Outcomes after which the person is where they asked to be (or holds what they asked for).
SUCCESSES = frozenset({Outcome.FOCUSED, Outcome.RESUMED, Outcome.RESUME})


@dataclass(frozen=True)
class OpenResult:
    outcome: Outcome
    message: str
    terminal: str | None = None
    # The pane, tab or window that was (or would have been) focused: a tmux pane id, a tty, a window id.
    target: str | None = None
    # A shell command to run instead: the resume command, or how to attach to tmux.
    command: str | None = None
    candidates: tuple[str, ...] = field(default_factory=tuple)
    # For PERMISSION: where the person grants it.
    grant: str | None = None

    @property
    def ok(self) -> bool:
        return self.outcome in SUCCESSES

    def as_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome.value,
            "message": self.message,
            "terminal": self.terminal,
            "target": self.target,
            "command": self.command,
            "candidates": list(self.candidates),
            "grant": self.grant,
        }
