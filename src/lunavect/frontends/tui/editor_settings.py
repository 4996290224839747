"""The "Sessions in editors" part of the panel's settings (the guide's Settings → Connections → Sessions in
editors): whether each editor's companion is installed and how many of its windows answer, and the command
that installs it.

Looking asks each open window's companion one short question, so it runs in a worker thread: the settings
open at once and the lines fill in when the answers are in.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Static

from lunavect.terminal_text import clean


class EditorSettings(Vertical):
    def __init__(self) -> None:
        super().__init__(id="editor-settings")

    def compose(self) -> ComposeResult:
        yield Label("Sessions in editors", classes="heading")
        yield Static(
            "The companion lets Enter select the exact VS Code or code-server terminal tab a session runs in.",
            classes="explain",
        )
        yield Static("looking…", id="editor-status")

    def on_mount(self) -> None:
        self.look()

    @work(thread=True, exclusive=True)
    def look(self) -> None:
        from lunavect.navigation.editors import install

        try:
            lines = [install.describe(status) for status in install.status()]
        except OSError as exc:
            lines = [f"cannot look: {exc}"]
        self.app.call_from_thread(self._show, lines)

    def _show(self, lines: list[str]) -> None:
        self.query_one("#editor-status", Static).update("\n".join(clean(line, 200) for line in lines))
