"""The notifications part of the panel's settings: on or off, each kind, focus, hidden sessions, sound, and
the usage warning's threshold.

Each change is saved to the store at once, where the collector's notifier reads it for its next batch (the
same value `lunavect notifications` edits).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Input, Label, Static

from lunavect.notify import settings
from lunavect.notify.kinds import KINDS
from lunavect.notify.settings import DEFAULT_SOUND, DEFAULT_USAGE_PERCENT, NO_SOUND, NotifySettings

KIND_LABELS = {
    "ready": "Response ready",
    "permission": "Permission needed",
    "input": "Input needed",
    "error": "API errors",
    "stale": "Working, then unknown",
}


class NotificationSettings(Vertical):
    def __init__(self, current: NotifySettings, save: Callable[[NotifySettings], None]) -> None:
        super().__init__(id="notify-settings")
        self.current = current
        self.save = save

    @classmethod
    def from_store(cls, conn: sqlite3.Connection, tell: Callable[[str], None]) -> NotificationSettings:
        """The stored settings, saved back on each change; `tell` shows why a change could not be saved."""

        def save(chosen: NotifySettings) -> None:
            try:
                settings.save(conn, chosen)
            except sqlite3.Error as exc:
                tell(f"The setting could not be saved: {exc}")

        return cls(settings.load(conn), save)

    def compose(self) -> ComposeResult:
        s = self.current
        yield Label("Notifications", classes="heading")
        yield Static(
            "Sent by the collector when a session needs you; `lunavect service install` keeps one running.",
            classes="explain",
        )
        yield Checkbox("Notify", value=s.enabled, id="notify-on", compact=True)
        for kind in KINDS:
            label = KIND_LABELS.get(kind.name, kind.name)
            yield Checkbox(label, value=kind.name in s.kinds, id=f"notify-kind-{kind.name}", compact=True)
        yield Checkbox("Not for what I am looking at", value=s.focus, id="notify-focus", compact=True)
        yield Checkbox("Hidden sessions too", value=s.hidden, id="notify-hidden", compact=True)
        yield Checkbox("Sound", value=s.sound != NO_SOUND, id="notify-sound", compact=True)
        with Horizontal(id="notify-usage-row"):
            yield Checkbox(
                "A rate-limit window reaches", value=s.usage_percent is not None, id="notify-usage", compact=True
            )
            yield Input(
                f"{s.usage_percent or DEFAULT_USAGE_PERCENT:g}",
                type="number",
                id="notify-usage-percent",
                compact=True,
                valid_empty=False,
            )
            yield Label("%")

    def on_input_changed(self, event: Input.Changed) -> None:
        """A threshold above 0 and at most 100 is saved as typed (when usage warnings are on)."""
        if event.input.id != "notify-usage-percent":
            return
        event.stop()
        try:
            value = float(event.value)
        except ValueError:
            return
        if 0 < value <= 100 and self.current.usage_percent is not None:
            self.current.usage_percent = value
            self.save(self.current)

    def _typed_percent(self) -> float:
        try:
            value = float(self.query_one("#notify-usage-percent", Input).value)
        except ValueError:
            return DEFAULT_USAGE_PERCENT
        return value if 0 < value <= 100 else DEFAULT_USAGE_PERCENT

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        name = event.checkbox.id or ""
        s = self.current
        on = event.value
        if name == "notify-on":
            s.enabled = on
        elif name.startswith("notify-kind-"):
            kind = name.removeprefix("notify-kind-")
            chosen = (set(s.kinds) | {kind}) if on else (set(s.kinds) - {kind})
            s.kinds = [k.name for k in KINDS if k.name in chosen]
        elif name == "notify-focus":
            s.focus = on
        elif name == "notify-hidden":
            s.hidden = on
        elif name == "notify-sound":
            s.sound = DEFAULT_SOUND if on else NO_SOUND
        elif name == "notify-usage":
            s.usage_percent = self._typed_percent() if on else None
        else:
            return
        event.stop()
        self.save(s)
