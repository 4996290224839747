"""Where the person is: every front end that starts (`lunavect`, `list`, `watch`, the web panel, ...) records
the time in its store (`note_person`), and this machine's heartbeat carries it to the others
(`listing.hosts.notifying_host` decides from all of them which machine notifies for the other hosts' sessions).
"""

from __future__ import annotations

import sqlite3
import time

from lunavect import store
from lunavect.sync import config

PERSON_SETTING = "sync.person_at"


def note_person(conn: sqlite3.Connection, now: float | None = None) -> None:
    """A person used a front end on this machine now."""
    now = time.time() if now is None else now
    store.set_setting(conn, PERSON_SETTING, repr(now))


def person_at(conn: sqlite3.Connection) -> float | None:
    text = store.get_setting(conn, PERSON_SETTING)
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def local_host(conn: sqlite3.Connection) -> str | None:
    """This machine's sync host name, or None when sync is off."""
    configured = config.load(conn)
    return configured.host if configured is not None else None
