"""Asking before a finished session is resumed: Enter on an ended row shows its resume command and what each
key does with it, inside tmux and outside alike.

Resuming starts the client again (it can spend money), and lunavect knows only the command, not the flags or the
environment the session was first started with; so nothing runs until the person presses the key that says so:
`r` runs it in a new tmux window beside the panel (inside tmux only: elsewhere a terminal window of its own would
open behind the person's back), `c` copies it, Esc closes. Enter does neither: the key that opened the row must
not also start its client.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lunavect.core.terminal_text import clean

ResumeChoice = Literal["resume", "copy"]


class ResumeScreen(ModalScreen[ResumeChoice | None]):
    """A finished session's resume command, and the keys that resume it (inside tmux) or copy it."""

    BINDINGS = [
        Binding("r", "choose('resume')", "Resume in a new tmux window", show=False),
        Binding("c", "choose('copy')", "Copy the command"),
        Binding("escape,q", "dismiss(None)", "Close"),
    ]

    def __init__(self, title: str, why: str, command: str, in_tmux: bool) -> None:
        super().__init__()
        self.title_text, self.why, self.command, self.in_tmux = title, why, command, in_tmux

    def compose(self) -> ComposeResult:
        keys = "r  resume it in a new tmux window beside this one\n" if self.in_tmux else ""
        with Vertical(id="resume"):
            yield Label(clean(f"{self.title_text} has finished"), id="resume-title", markup=False)
            yield Static(clean(self.why), id="resume-why", markup=False)
            yield Static(clean(self.command), id="resume-command", markup=False)
            yield Static(
                "It starts the client again, without the options or the environment it was first started with.\n"
                + keys
                + "c  copy the command\nEsc  close, running nothing",
                id="resume-keys",
                markup=False,
            )

    def action_choose(self, choice: ResumeChoice) -> None:
        if choice == "resume" and not self.in_tmux:
            return  # outside tmux the panel never opens a terminal window of its own
        if choice == "copy":
            self.app.copy_to_clipboard(self.command)
        self.dismiss(choice)


def ask_to_resume(
    app: App, title: str, why: str, command: str, say: Callable[[str], None], resume: Callable[[], object]
) -> None:
    """Ask what to do with a finished session's resume command: what the person chose is said (`say`) and, for
    `r` (inside tmux only), done (`resume`)."""

    def chosen(choice: ResumeChoice | None) -> None:
        if choice is not None:
            say(f"Copied: {command}" if choice == "copy" else "Resuming…")
        if choice == "resume":
            resume()

    app.push_screen(ResumeScreen(title, why, command, bool(os.environ.get("TMUX"))), chosen)
