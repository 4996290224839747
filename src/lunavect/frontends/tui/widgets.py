"""The panel's small widgets: the header with its counters."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static


class Counter(Static):
    """One header counter; selecting the awaiting-input counter filters the list (the guide)."""

    class Selected(Message):
        def __init__(self, counter: Counter) -> None:
            super().__init__()
            self.counter = counter

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Selected(self))


class PanelHeader(Horizontal):
    """The name, the current view, and the working and awaiting-input counters."""

    def compose(self) -> ComposeResult:
        yield Static("lunavect", classes="title")
        yield Static("", classes="view", id="view-name")
        yield Static("", classes="spacer")
        yield Counter("", classes="working", id="working")
        yield Counter("", classes="awaiting", id="awaiting")

    def show(self, working: int, awaiting: int, awaiting_selected: bool, view: str = "") -> None:
        self.query_one("#working", Counter).update(f"● {working} working")
        awaiting_counter = self.query_one("#awaiting", Counter)
        awaiting_counter.update(f"◆ {awaiting} awaiting input")
        awaiting_counter.set_class(awaiting_selected, "-selected")
        awaiting_counter.tooltip = (
            "Showing only sessions that need a reply or permission: select again to show all"
            if awaiting_selected
            else "Show only sessions that need a reply or permission"
        )
        self.query_one("#view-name", Static).update(view)
