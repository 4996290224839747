"""The tray application: the icon follows the change feed; its menu lists the sessions that need their person.

The icon and the menu are rebuilt only when the summary changes (the change feed wakes a thread; nothing runs
on a timer). The menu's first item is the session that needs its person most (`attention.needs_person`, what
`lunavect next` opens). Choosing a session opens it with `navigation.navigate.open_session`, as `lunavect open` does;
"Open panel" starts the panel in a new terminal window; "Quit" ends the tray.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from lunavect import store
from lunavect.core.model import Session
from lunavect.frontends.rows import counts_text, label
from lunavect.frontends.tray.icon import draw
from lunavect.listing import changes
from lunavect.listing.attention import summarize
from lunavect.navigation.resume import command_terminal_argv

TITLE = "lunavect"


def open_panel(environ: dict[str, str] | None = None) -> None:
    """The panel in a new terminal window, run by the Python this tray runs on."""
    env = dict(os.environ if environ is None else environ)
    argv = command_terminal_argv(f"{sys.executable} -m lunavect", env)
    if argv:
        subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, start_new_session=True)


class Tray:
    """The pystray icon and what it shows; `follow` keeps it current until the icon stops."""

    def __init__(self, conn: sqlite3.Connection, open_one: Callable[[Session], object]) -> None:
        import pystray

        self._pystray = pystray
        self.conn = conn
        self.open_one = open_one
        self.summary = summarize(conn)
        self.icon = pystray.Icon(
            "lunavect", icon=draw(self.summary), title=self._title(), menu=pystray.Menu(self._items)
        )

    def _title(self) -> str:
        return f"{TITLE}: {counts_text(self.summary)}"

    def _items(self) -> list[Any]:
        """First the session that needs its person most (what `lunavect next` opens; the icon's default action),
        then every session that needs them, then the panel and Quit."""
        item, menu = self._pystray.MenuItem, self._pystray.Menu
        most = self.summary.next
        if most is not None:
            first = item(f"Next: {label(most)}", self._opener(most), default=True)
        else:
            first = item("Next: nothing needs you", None, enabled=False)
        entries = [item(label(s), self._opener(s)) for s in self.summary.attention]
        if not entries:
            entries = [item("Nothing needs you", None, enabled=False)]
        return [
            first,
            menu.SEPARATOR,
            *entries,
            menu.SEPARATOR,
            item("Open panel", lambda: open_panel()),
            item("Quit", self.quit),
        ]

    def _opener(self, session: Session) -> Callable[[], None]:
        def open_it() -> None:
            self.open_one(session)

        return open_it

    def refresh(self, conn: sqlite3.Connection) -> bool:
        """Redraw the icon and rebuild the menu if the summary changed."""
        summary = summarize(conn)
        if summary == self.summary:
            return False
        self.summary = summary
        self.icon.icon = draw(summary)
        self.icon.title = self._title()
        self.icon.update_menu()
        return True

    def follow(self) -> None:
        """The feed's thread, with its own connection (a connection belongs to the thread that opened it)."""
        conn = store.connect()
        feed = changes.Feed()  # no stop to poll for: the thread ends with the process
        try:
            for _ in feed:
                self.refresh(conn)
        finally:
            feed.close()
            conn.close()

    def quit(self) -> None:
        self.icon.stop()

    def run(self) -> None:
        def setup(icon: Any) -> None:
            icon.visible = True
            threading.Thread(target=self.follow, name="lunavect-tray-feed", daemon=True).start()

        self.icon.run(setup=setup)
