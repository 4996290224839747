"""The "Sessions in editors" part of the panel's settings (the guide's Settings → Connections → Sessions in
editors): whether each editor's companion is installed and how many of its windows answer, and a button that
installs it through the editor's own command (as `lunavect editors install` does).

Looking asks each open window's companion one short question, and installing runs the editor's command line,
so both run in a worker thread: the settings stay responsive and the lines fill in when the answers are in.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from lunavect.core.terminal_text import clean

INSTALL_LABELS = {"vscode": "Install in VS Code", "code-server": "Install in code-server"}


class EditorSettings(Vertical):
    def __init__(self) -> None:
        super().__init__(id="editor-settings")

    def compose(self) -> ComposeResult:
        yield Label("Sessions in editors", classes="heading")
        yield Static(
            "The companion lets Enter select the exact VS Code or code-server terminal tab a session runs in; "
            "reload the editor's open windows after installing it.",
            classes="explain",
        )
        yield Static("looking…", id="editor-status")
        with Horizontal(id="editor-install"):
            for editor, label in INSTALL_LABELS.items():
                yield Button(label, id=f"editor-install-{editor}", compact=True)

    def on_mount(self) -> None:
        self.look()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        name = event.button.id or ""
        if not name.startswith("editor-install-"):
            return
        event.stop()
        self.query_one("#editor-status", Static).update("installing…")
        self.install(name.removeprefix("editor-install-"))

    @work(thread=True, exclusive=True)
    def look(self, note: str | None = None) -> None:
        from lunavect.navigation.editors import install

        try:
            lines = [install.describe(status) for status in install.status()]
        except OSError as exc:
            lines = [f"cannot look: {exc}"]
        self.app.call_from_thread(self._show, [note, *lines] if note else lines)

    @work(thread=True, exclusive=True, group="install")
    def install(self, editor: str) -> None:
        from lunavect.navigation.editors import install

        try:
            install.install(editor)
            note = f"installed in {editor}: reload its open windows"
        except (install.EditorError, OSError) as exc:
            note = f"cannot install the {editor} companion: {exc}"
        self.app.call_from_thread(self.look, note)

    def _show(self, lines: list[str]) -> None:
        self.query_one("#editor-status", Static).update("\n".join(clean(line, 300) for line in lines))
