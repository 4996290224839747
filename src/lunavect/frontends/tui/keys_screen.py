"""The `?` screen: every key of the panel, read from the bindings themselves (the panel's screen, its session
list and the app), so it never says a key that is not there or misses one that is."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

# Keys whose binding text says less than a person needs here.
MORE = {
    "clear_cursor": "Leave the list",
    "toggle_active": "Only the active sessions, or all again",
    "cycle_provider": "Show one client's sessions, then the next",
    "toggle_usage": "Show or hide the usage column",
    "usage_chart": "Usage: tokens per day and rate-limit windows",
    "command_palette": "Commands and themes",
}


# Actions that are another's key seen from elsewhere: Down (or j) with no row focused goes to the first row.
SAME_AS_ANOTHER = {"first_row"}


def rows(*groups: Sequence[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do) for each action of `groups`, in their order: an action bound twice is one row with
    both keys, and the first group's words for an action win."""
    keys: dict[str, list[str]] = {}
    words: dict[str, str] = {}
    for group in groups:
        for binding in group:
            assert isinstance(binding, Binding)
            action = binding.action
            if action in SAME_AS_ANOTHER:
                continue
            words.setdefault(action, MORE.get(action.split("(")[0], binding.description or action))
            for key in binding.key.split(","):
                if key.strip() not in keys.setdefault(action, []):
                    keys[action].append(key.strip())
    return [(" ".join(_shown(key) for key in keys[action]), words[action]) for action in keys]


def _shown(key: str) -> str:
    """A key as a person reads it (`ctrl+f` as `Ctrl+F`, `question_mark` as `?`)."""
    names = {"question_mark": "?", "slash": "/", "space": "Space", "escape": "Esc", "delete": "Del",
             "pageup": "PgUp", "pagedown": "PgDn", "enter": "Enter", "up": "↑", "down": "↓"}  # fmt: skip
    *modifiers, last = key.split("+")
    if len(last) == 1:
        last = last.upper() if modifiers else last  # Ctrl+F, but j as it is typed
    else:
        last = names.get(last, last.capitalize())
    return "+".join([*(part.capitalize() for part in modifiers), last])


class KeysScreen(ModalScreen[None]):
    """Every key of the panel; Esc or ? closes it."""

    BINDINGS = [Binding("escape,question_mark", "dismiss(None)", "Close")]

    def __init__(self, shown: list[tuple[str, str]]) -> None:
        super().__init__()
        self.shown = shown

    def compose(self) -> ComposeResult:
        width = max(len(keys) for keys, _ in self.shown)
        with VerticalScroll(id="keys"):
            yield Label("Keys", id="keys-title")
            for keys, what in self.shown:
                yield Static(f"{keys:<{width}}  {what}", markup=False)
            yield Label("Esc closes", id="keys-hint")
