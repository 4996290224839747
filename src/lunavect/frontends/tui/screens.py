"""The panel's other views: the row menu, the hidden sessions and the settings.

Each is a screen of its own, pushed by the panel's screen, which fills them (`HiddenScreen.show`) or takes
their answer when they close (the row menu's choice); what they ask while open goes up as messages.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from lunavect.core import dismissal
from lunavect.core.hiding import AUTO_HIDE_CHOICES
from lunavect.core.model import Session
from lunavect.core.terminal_text import clean
from lunavect.frontends.tui.columns import ColumnHeader
from lunavect.frontends.tui.messages import MenuChoice, RowRequest
from lunavect.frontends.tui.notify_settings import NotificationSettings
from lunavect.frontends.tui.session_list import HiddenSessionList, SessionList
from lunavect.frontends.tui.widgets import MessageLine, PanelHeader
from lunavect.listing.attention import Summary


def menu_actions(session: Session, hidden_view: bool = False) -> list[tuple[MenuChoice, str]]:
    """The row menu: only the actions this session has (no resume command, no "copy resume command")."""
    actions: list[tuple[MenuChoice, str]]
    if hidden_view:
        actions = [("restore", "Restore to the list")]
    else:
        actions = [
            ("open", "Open"),
            ("pin", "Unpin" if session.pinned else "Pin"),
            ("hide", "Hide"),
            ("move_up", "Move up"),
            ("move_down", "Move down"),
        ]
        if dismissal.mark_of(session) is not None:
            # A ready reply or an error, seen: it stays listed but needs the person no more (`core.dismissal`).
            actions.insert(3, ("dismiss", "Needs me again" if session.dismissed else "Dismiss (seen)"))
    if session.cwd:
        actions.append(("folder", "Open the project folder"))
    if session.resume:
        actions.append(("copy_resume", "Copy the resume command"))
    return actions


class RowMenu(ModalScreen[MenuChoice | None]):
    """The actions available for one session; it closes with the one chosen."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, session: Session, hidden_view: bool = False) -> None:
        super().__init__()
        self.session = session
        self.hidden_view = hidden_view
        self.actions = menu_actions(session, hidden_view)

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Label(clean(self.session.title or "(untitled)"), id="menu-title", markup=False)
            yield OptionList(*(Option(label, id=action) for action, label in self.actions), id="menu-options")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(next((action for action, _ in self.actions if action == event.option.id), None))


class HiddenScreen(Screen[None]):
    """Hidden sessions, to review and restore. Hiding never stopped their work.

    The panel's screen fills it at each change. Its rows' requests, its awaiting-input counter and the panel's
    keys that work here too (`PanelApp.BINDINGS`) reach the app, which passes them to the panel's screen.
    """

    BINDINGS = [
        Binding("escape,h", "app.pop_screen", "Back"),
        Binding("u", "restore", "Restore", show=False),
        Binding("down", "first_row", "First row", show=False),
    ]

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield PanelHeader(id="header")
        yield MessageLine("", id="message", markup=False)
        yield Static(
            "Hiding changes only this list: hidden sessions keep working and count in the totals. "
            "Enter restores one; Esc goes back.",
            id="hint",
        )
        yield ColumnHeader(id="columns")
        yield HiddenSessionList(clock=self.clock, id="hidden-sessions")
        yield Static("No hidden sessions.", id="empty")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(SessionList).focus()

    def show(self, hidden: list[Session], counts: Summary, awaiting_selected: bool, note: str | None) -> None:
        """Show these hidden sessions, or that there are none, under the panel's counters (`note`: since when
        other machines' rows are not current)."""
        view = " · ".join(part for part in ("Hidden sessions", note) if part)
        self.query_one(PanelHeader).show(counts, awaiting_selected, view)
        session_list = self.query_one(SessionList)
        session_list.set_sessions(hidden)
        session_list.display = bool(hidden)
        self.query_one("#empty", Static).set_class(not hidden, "-shown")

    def show_message(self, text: str) -> None:
        for line in self.query(MessageLine):  # none yet while the view is being composed
            line.say(text)

    def action_restore(self) -> None:
        current = self.query_one(SessionList).current
        if current is not None:
            self.post_message(RowRequest("restore", current))

    def action_first_row(self) -> None:
        self.query_one(SessionList).focus_first_row()


class SettingsScreen(ModalScreen[None]):
    """Settings that live in the store: automatic hiding, off for a new installation."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(
        self,
        auto_hide_after: float | None,
        apply_auto_hide: Callable[[float | None], None],
        notifications: NotificationSettings | None = None,
        editors: Widget | None = None,
    ) -> None:
        super().__init__()
        self.auto_hide_after = auto_hide_after
        self.apply_auto_hide = apply_auto_hide
        self.notifications = notifications
        self.editors = editors

    def compose(self) -> ComposeResult:
        with Vertical(id="settings"):
            yield Label("Settings", classes="heading")
            yield Label("Automatic hiding", classes="heading")
            yield Static(
                "Hides sessions whose response is ready, that are idle or ended in an error, once they have "
                "been inactive this long. Working, waiting and unknown sessions are never hidden automatically.",
                classes="explain",
            )
            with RadioSet(id="auto-hide"):
                yield RadioButton("Off", value=self.auto_hide_after is None, id="auto-hide-off")
                for index, (label, seconds) in enumerate(AUTO_HIDE_CHOICES):
                    yield RadioButton(f"After {label}", value=self.auto_hide_after == seconds, id=f"auto-hide-{index}")
            if self.notifications is not None:
                yield self.notifications
            if self.editors is not None:
                yield self.editors
            yield Button("Close", id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one(RadioSet).focus()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        pressed = event.pressed.id or ""
        if pressed == "auto-hide-off":
            self.apply_auto_hide(None)
        elif pressed.startswith("auto-hide-"):
            self.apply_auto_hide(AUTO_HIDE_CHOICES[int(pressed.rsplit("-", 1)[1])][1])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "close":
            self.dismiss(None)
