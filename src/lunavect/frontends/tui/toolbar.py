"""The bar above the list: the search field and the buttons of the filters, the hidden view and the settings.

It shows the filter its screen gives it and reports what the person does (Textual's `Input.Changed` and
`Button.Pressed`, its own `ProviderChosen`, and `messages.LeftSearch`); its screen keeps the filter.

The client filter names only the clients the list holds (`filters.provider_choices`), as one button each while
they fit beside a readable search field and the other buttons; past that, however many clients there are, they
give way to one compact choice (a drop-down), so that Active, Hidden and Settings never leave the screen.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Input, Select

from lunavect.core import clients
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.filters import Filter
from lunavect.frontends.tui.messages import LeftSearch

PLACEHOLDER = "Search title or project (Ctrl+F)"
# What the search field keeps before the client buttons may take the bar's width: its whole placeholder.
SEARCH_KEEPS = cell_len(PLACEHOLDER) + 2
# A button's cells: its label between one cell each side (Textual's Button), at least its minimum width
# (panel.tcss: `min-width: 5`), and the cell that parts it from its neighbour (`margin-left: 1`).
BUTTON_MIN = 5


def button_cells(label: str) -> int:
    return max(cell_len(label) + 2, BUTTON_MIN) + 1


def choice_label(provider: str) -> str:
    """A choice as the compact form names it: "All clients", "Claude"."""
    return "All clients" if provider == "all" else filters.provider_label(provider)


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


class ClientChoice(Select[str]):
    """The client filter's compact form: a drop-down of the same choices as the buttons.

    Textual's Select says `Changed` for every value it takes, the toolbar's own settings (and its first mount)
    included; only a choice other than the one the toolbar shows it is the person's (`Toolbar.ProviderChosen`)."""

    def __init__(self, *, id: str) -> None:
        super().__init__([(choice_label("all"), "all")], value="all", id=id, compact=True, allow_blank=False)
        self.shown = "all"
        self.choices: tuple[str, ...] = ("all",)

    def show(self, choices: tuple[str, ...], chosen: str) -> None:
        """Offer `choices` (all at least) with `chosen` selected, without a word to the screen."""
        with self.prevent(Select.Changed):
            self.shown = chosen
            if choices != self.choices:
                self.choices = choices
                labels = [(choice_label(p), p) for p in choices]
                self.set_options(labels)
                # Its longest choice, the cell before its arrow, the arrow and the cell after (Textual's Select).
                self.styles.width = max(cell_len(label) for label, _ in labels) + 3
            if self.value != chosen and chosen in choices:
                self.value = chosen

    @on(Select.Changed)
    def changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str) and event.value != self.shown:
            self.shown = event.value
            self.post_message(Toolbar.ProviderChosen(event.value))


class Toolbar(Horizontal):
    class ProviderChosen(Message):
        """The person chose a client filter ("all" or a client's id), by its button or in the drop-down."""

        def __init__(self, provider: str) -> None:
            super().__init__()
            self.provider = provider

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._choices: tuple[str, ...] = ()
        self._chosen = Filter()

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder=PLACEHOLDER, id="search", compact=True)
        # One button per client lunavect knows, each shown while the list holds that client (`show`).
        yield Button("All", id="provider-all", compact=True, classes="provider")
        for client in clients.every():
            yield Button(client.label, id=f"provider-{client.id}", compact=True, classes="provider")
        yield ClientChoice(id="client-choice")
        # Active is about states (working, or waiting for the person), not the open mark ● (its client runs).
        yield Button("Active", id="active", compact=True, tooltip="Only sessions that work or wait for you (v)")
        yield Button("Hidden", id="hidden", compact=True)
        yield Button("Settings", id="settings", compact=True)

    def show(self, chosen: Filter, choices: tuple[str, ...], hidden: int) -> None:
        """Mark the chosen filter's buttons, show the client choices (`filters.provider_choices`) as buttons or,
        where they do not fit, as the compact choice, and count the hidden sessions on the Hidden button."""
        self._chosen = chosen
        self.query_one("#hidden", Button).label = f"Hidden {hidden}" if hidden else "Hidden"
        self.query_one("#active", Button).set_class(chosen.active, "-selected")
        self._choices = choices
        self.query_one(ClientChoice).show(choices or ("all",), chosen.provider)
        self._lay_out()

    def _lay_out(self) -> None:
        choices, chosen = self._choices, self._chosen.provider
        compact = bool(choices) and self._cells(*(f"provider-{p}" for p in choices)) > self._room()
        for provider in filters.providers():
            button = self.query_one(f"#provider-{provider}", Button)
            button.display = not compact and provider in choices
            button.set_class(chosen == provider, "-selected")
        select = self.query_one(ClientChoice)
        select.display = compact
        select.set_class(chosen != "all", "-selected")

    def _cells(self, *ids: str) -> int:
        """The cells the buttons of these ids take, with their labels as they are now."""
        return sum(button_cells(str(self.query_one(f"#{id_}", Button).label)) for id_ in ids)

    def _room(self) -> int:
        """The cells the client buttons may take: the bar's width less the search field's share and the other
        buttons."""
        # Before its first layout, the bar's width is the screen's less its padding (panel.tcss).
        width = self.content_region.width or self.app.size.width - 2
        return width - SEARCH_KEEPS - self._cells("active", "hidden", "settings")

    def on_resize(self) -> None:
        self._lay_out()

    @on(Button.Pressed, ".provider")
    def provider_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.ProviderChosen((event.button.id or "").removeprefix("provider-")))
