"""The notifications part of the panel's settings: on or off, each kind, focus, hidden sessions, sound.

Each change is saved to the store at once, where the collector's notifier reads it for its next batch (the
same value `lunavect notifications` edits).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Checkbox, Label, Static

from lunavect.notify import settings
from lunavect.notify.kinds import KINDS
from lunavect.notify.settings import DEFAULT_SOUND, NO_SOUND, NotifySettings

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
        else:
            return
        event.stop()
        self.save(s)
