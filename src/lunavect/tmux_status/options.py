"""What lunavect publishes to tmux: the values of its user options, from one summary of the store.

Global options carry the counts (`@lunavect_working`, `@lunavect_awaiting`, `@lunavect_errors`) and a ready-made
coloured `@lunavect_status` for `status-right`; each pane that runs a live agent gets `@lunavect_state` for
`pane-border-format`. The texts here are the tmux rendering of a summary: `lunavect status --format tmux`
prints the same `status_text`.
"""

from __future__ import annotations

from lunavect.core import tmux_text
from lunavect.core.model import Session
from lunavect.core.state_words import count_words, state_words
from lunavect.listing.attention import Summary

# The colour of each summary level, shared by every bar that takes a colour.
COLORS = {"awaiting": "#e5a50a", "error": "#e01b24", "working": "#3584e4", "idle": "#9a9996"}


def count_parts(summary: Summary, short: bool = False) -> list[str]:
    """Working, awaiting and (only when there are some) errors, each with its mark and, unless `short`, its
    words (`core.state_words.count_words`: `⚙ 2 working`, `⚙ 2`), then the notes."""
    parts = [
        count_words("working", summary.working, short),
        count_words("awaiting_input", summary.awaiting_input, short),
    ]
    if summary.errors:
        parts.append(count_words("errors", summary.errors, short))
    return parts + list(summary.notes)


def short_text(summary: Summary) -> str:
    """The compact counts the bars show: `⚙ 2  ◆ 1  ✗ 1` (the panel's marks, without its words)."""
    return "  ".join(count_parts(summary, short=True))


def status_text(summary: Summary) -> str:
    """The counts as a tmux format string, coloured by level; a note's text is shown as it is, never as a
    format (the status line draws the value)."""
    return f"#[fg={COLORS[summary.level]}]{tmux_text.drawn(short_text(summary))}#[default]"


GLOBAL_OPTIONS = ("@lunavect_working", "@lunavect_awaiting", "@lunavect_errors", "@lunavect_status")


def global_values(summary: Summary) -> dict[str, str]:
    return {
        "@lunavect_working": str(summary.working),
        "@lunavect_awaiting": str(summary.awaiting_input),
        "@lunavect_errors": str(summary.errors),
        "@lunavect_status": status_text(summary),
    }


def _device(tty: str) -> str:
    return tty if tty.startswith("/dev/") else f"/dev/{tty}"


def pane_states(sessions: list[Session]) -> dict[str, str]:
    """Each live agent's terminal device and its state in the panel's words, "Permission needed: Bash" (the
    device is how a pane is found)."""
    states: dict[str, str] = {}
    for session in sessions:
        if session.tty and session.pid is not None:
            states[_device(session.tty)] = state_words(session)
    return states
