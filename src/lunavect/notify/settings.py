"""The person's notification choices: one JSON value in the store's settings, read by the collector's notifier
on every delivery (so `lunavect notifications off` and the panel's settings take effect without a restart).

A new installation notifies for ready, permission, input and errors (the kinds whose `default_on` is true),
warns when an account's rate-limit window reaches 90 %, suppresses notifications for the session the person
is looking at, plays the platform's default sound, and runs no command.
"""

from __future__ import annotations

import sqlite3

import msgspec

from lunavect import store
from lunavect.notify.decide import COALESCE_S, QUIET_S, Policy
from lunavect.notify.kinds import KINDS
from lunavect.usage.warnings import DEFAULT_THRESHOLD as DEFAULT_USAGE_PERCENT

SETTING_KEY = "notify"
DEFAULT_SOUND = "default"
NO_SOUND = "none"


class NotifySettings(msgspec.Struct, forbid_unknown_fields=False, omit_defaults=True):
    enabled: bool = True
    kinds: list[str] = msgspec.field(default_factory=lambda: [k.name for k in KINDS if k.default_on])
    # Notify for hidden sessions too.
    hidden: bool = False
    # Stay silent for the session whose pane or window the person is looking at.
    focus: bool = True
    # Send desktop notifications (the notification server); the command hook is separate.
    desktop: bool = True
    # The sound: `default`, `none`, or a sound name the platform knows; per kind or per project by name.
    sound: str = DEFAULT_SOUND
    sounds: dict[str, str] = msgspec.field(default_factory=dict)
    # A program run with each notification as JSON on its stdin (split like a shell would, never through one).
    command: str | None = None
    # Push through Apprise (`notify.push`): the path of the person's Apprise configuration file (never a URL or
    # a token), and the tag that picks its services (None: every one).
    push_config: str | None = None
    push_tag: str | None = None
    quiet_s: float = QUIET_S
    coalesce_s: float = COALESCE_S
    # Warn once per window when an account's rate-limit window reaches this many percent; None: never.
    usage_percent: float | None = DEFAULT_USAGE_PERCENT

    def policy(self) -> Policy:
        return Policy(
            enabled=self.enabled,
            kinds=frozenset(self.kinds),
            hidden=self.hidden,
            coalesce_s=self.coalesce_s,
            quiet_s=self.quiet_s,
        )

    def sound_for(self, kinds: tuple[str, ...], projects: tuple[str | None, ...]) -> str:
        """A project's own sound wins over a kind's, which wins over the general one."""
        for name in (*projects, *kinds):
            if name and name in self.sounds:
                return self.sounds[name]
        return self.sound


_decoder = msgspec.json.Decoder(NotifySettings)


def load(conn: sqlite3.Connection) -> NotifySettings:
    """The stored choices; an unreadable value counts as the defaults rather than silencing everything."""
    raw = store.get_setting(conn, SETTING_KEY)
    if raw is None:
        return NotifySettings()
    try:
        return _decoder.decode(raw)
    except msgspec.DecodeError:
        return NotifySettings()


def save(conn: sqlite3.Connection, settings: NotifySettings) -> None:
    store.set_setting(conn, SETTING_KEY, msgspec.json.encode(settings).decode())
