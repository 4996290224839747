"""The list as the panel last read it from the store: every session, hidden ones too, split into the current
and the hidden ones, and the current ones as the person's filter shows them.

Kept apart from the screens, which only draw it, and made so that a change costs what changed: a read decodes
only the rows that moved (`RowMemo`), the split is made once per read, and each session's search key is
folded once (`filters.SearchKeys`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from lunavect.collector import setup_report
from lunavect.core.model import Session
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.filters import Filter, SearchKeys
from lunavect.listing.sessions import RowMemo, auto_hide_after, read_sessions


class LastRead:
    def __init__(self) -> None:
        self.sessions: list[Session] = []
        # When the list was read, by the panel's clock.
        self.at = 0.0
        # Rows decoded by the last read: a change decodes only the rows that moved.
        self._memo = RowMemo()
        self._search_keys = SearchKeys()
        self._split_of: list[Session] | None = None
        self._split_lists: tuple[list[Session], list[Session]] = ([], [])
        self._providers: frozenset[str] = frozenset()

    def read(self, conn: sqlite3.Connection, now: float) -> None:
        """Read the list again (an `sqlite3.Error` leaves the last read as it was)."""
        self.sessions = read_sessions(conn, include_hidden=True, now=now, memo=self._memo)
        self.at = now

    def _split(self) -> tuple[list[Session], list[Session]]:
        """The current and the hidden sessions, split once per read (each change redraws from them)."""
        if self._split_of is not self.sessions:
            current: list[Session] = []
            hidden: list[Session] = []
            for session in self.sessions:
                (hidden if session.hidden else current).append(session)
            self._split_lists, self._split_of = (current, hidden), self.sessions
            self._providers = frozenset(session.provider for session in self.sessions)
        return self._split_lists

    @property
    def current(self) -> list[Session]:
        return self._split()[0]

    @property
    def hidden(self) -> list[Session]:
        return self._split()[1]

    def provider_choices(self, chosen: Filter) -> tuple[str, ...]:
        """The provider filter's choices for this list (`filters.provider_choices`): the clients of every listed
        row, hidden ones too, and the chosen one."""
        self._split()
        return filters.provider_choices(self._providers, chosen.provider)

    def visible(self, chosen: Filter) -> list[Session]:
        """The current sessions that the filter shows, in their order."""
        return chosen.apply(self.current, self._search_keys)

    def changes_with_time(self, conn: sqlite3.Connection) -> bool:
        """Whether time alone can change the list, so that it must be read again on the clock: automatic hiding
        is on, a row is hidden (it leaves the hidden list in time), or another host's row is shown (its host
        falls silent). Otherwise an idle panel reads nothing until the collector announces a change."""
        if auto_hide_after(conn) is not None:
            return True
        return any(s.hidden or s.heard is not None for s in self.sessions)

    def why_empty(self, chosen: Filter, setup: Callable[[], setup_report.SetupReport | None]) -> str:
        """What an empty list says instead: how to set lunavect up (`setup` is asked only then), what the
        filter leaves out, or that every session is hidden."""
        if not self.sessions:
            return "\n".join(setup_report.explain(setup()))
        current = self.current
        if current and chosen.narrows:
            what = []
            if chosen.awaiting:
                what.append("awaiting input")
            if chosen.active:
                what.append("active")
            if chosen.provider != "all":
                what.append(filters.provider_label(chosen.provider))
            if chosen.search.strip():
                what.append(f"matching “{chosen.search.strip()}”")
            return f"No session is {', '.join(what)}. {len(current)} in the list without this filter."
        return f"No sessions in the list. {len(self.hidden)} hidden: press h to review them."
