"""The bar above the list: the search field and the buttons of the filters, the hidden view and the settings.

It shows the filter its screen gives it and reports what the person does (Textual's `Input.Changed` and
`Button.Pressed`, and `messages.LeftSearch`); its screen keeps the filter.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input

from lunavect.core import clients
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.filters import Filter
from lunavect.frontends.tui.messages import LeftSearch


class SearchInput(Input):
    """The search field; Down goes to the first row (the guide's keyboard), Esc clears it and leaves it."""

    BINDINGS = [
        Binding("down", "leave_down", "First row", show=False),
        Binding("escape", "leave", "Clear search", show=False),
    ]

    def action_leave_down(self) -> None:
        self.post_message(LeftSearch())

    def action_leave(self) -> None:
        self.value = ""  # the list shows every row again (Input.Changed)
        self.screen.set_focus(None)


class Toolbar(Horizontal):
    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="Search title or project (Ctrl+F)", id="search", compact=True)
        yield Button("All", id="provider-all", compact=True)
        for client in clients.every():
            yield Button(client.label, id=f"provider-{client.id}", compact=True)
        # Active is about states (working, or waiting for the person), not the open mark ● (its client runs).
        yield Button("Active", id="active", compact=True, tooltip="Only sessions that work or wait for you (v)")
        yield Button("Hidden", id="hidden", compact=True)
        yield Button("Settings", id="settings", compact=True)

    def show(self, chosen: Filter, hidden: int) -> None:
        """Mark the chosen filter's buttons, and count the hidden sessions on the Hidden button."""
        for provider in filters.providers():
            self.query_one(f"#provider-{provider}", Button).set_class(chosen.provider == provider, "-selected")
        self.query_one("#active", Button).set_class(chosen.active, "-selected")
        self.query_one("#hidden", Button).label = f"Hidden {hidden}" if hidden else "Hidden"
