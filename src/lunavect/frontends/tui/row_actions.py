"""What the person asks of one row in the panel: open it, pin, hide, restore, move, open its folder, copy its
resume command.

Kept apart from the panel's layout and filters (app.py) so each stays small; the panel inherits these
handlers. Every change goes through `lunavect.listing.arrangement`, as the CLI's and the web panel's do, and opening
goes through `lunavect.navigation`, the code of `lunavect open`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable

from textual import on
from textual.app import App

from lunavect.core.model import Session
from lunavect.frontends.tui import opening
from lunavect.frontends.tui.screens import HiddenScreen, RowMenu
from lunavect.frontends.tui.session_list import SessionList
from lunavect.listing import arrangement


class RowActions(App[None]):
    """The row handlers of the panel; `PanelApp` provides the store, the clock, the list and the messages."""

    conn: sqlite3.Connection | None
    clock: Callable[[], float]
    history: arrangement.HideHistory
    sessions: list[Session]

    @property
    def main_list(self) -> SessionList:
        raise NotImplementedError

    def show_message(self, text: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    # -- the person's requests ----------------------------------------------------------------------------

    @on(SessionList.Request)
    def handle_request(self, request: SessionList.Request) -> None:
        session = request.session
        action = request.action
        if action == "menu":
            hidden_view = isinstance(self.screen, HiddenScreen)
            self.push_screen(RowMenu(session, hidden_view), lambda chosen: self._menu_chosen(session, chosen))
            return
        self._perform(action, session, request.target)

    def _menu_chosen(self, session: Session, chosen: str | None) -> None:
        if chosen is None:
            return
        if chosen in ("move_up", "move_down"):
            self._move_by(session, -1 if chosen == "move_up" else 1)
            return
        self._perform(chosen, session, None)

    def _move_by(self, session: Session, step: int) -> None:
        rows = self.main_list.sessions
        index = next((i for i, s in enumerate(rows) if s.id == session.id), None)
        if index is None or not (0 <= index + step < len(rows)) or rows[index + step].pinned != session.pinned:
            return
        self._perform("move_before" if step < 0 else "move_after", session, rows[index + step].id)

    def _perform(self, action: str, session: Session, target: str | None) -> None:
        conn = self.conn
        if conn is None:
            return
        name = f"“{session.title or session.session_id[:8]}”"
        now = self.clock()
        try:
            if action == "open":
                self.open_session(session)
            elif action == "hide":
                if self.history.hide(conn, session.id, now):
                    self.show_message(f"Hid {name}. Its work goes on. Ctrl+Z (Undo) brings it back.")
                self.refresh_bindings()
            elif action == "restore":
                if arrangement.unhide(conn, session.id, now):
                    self.show_message(f"Restored {name} to the list.")
            elif action == "pin":
                if session.pinned:
                    arrangement.unpin(conn, session.id)
                    self.show_message(f"Unpinned {name}.")
                else:
                    arrangement.pin(conn, session.id)
                    self.show_message(f"Pinned {name}.")
            elif action in ("move_before", "move_after") and target is not None:
                move = arrangement.move_before if action == "move_before" else arrangement.move_after
                move(conn, session.id, target, now)
            elif action == "folder":
                self.open_folder(session)
            elif action == "copy_resume":
                if session.resume:
                    self.copy_to_clipboard(session.resume)
                    self.show_message(f"Copied: {session.resume}")
        except arrangement.ArrangeError as exc:
            self.show_message(str(exc))
        except sqlite3.Error as exc:
            self.show_message(f"The store could not be changed: {exc}")
        self.reload()

    def open_session(self, session: Session) -> None:
        """Return to the session (its exact pane or tab), or offer its resume command once it has finished.

        Locating a session reads the process table and may wait for a terminal to answer, so it runs off the
        screen's thread; the outcome arrives as the message at the top.
        """
        others = [s for s in self.sessions if s.id != session.id]
        self.show_message(f"Opening “{session.title or session.session_id[:8]}”…")
        self.run_worker(lambda: self._open_in_thread(session, others), thread=True, group="open", exclusive=True)

    def _open_in_thread(self, session: Session, others: list[Session]) -> None:
        from lunavect.navigation.navigate import open_session
        from lunavect.navigation.open_result import Outcome

        # Inside tmux a finished session resumes in a new window beside the panel; elsewhere the panel offers
        # the command (a terminal window of its own would open behind the person's back).
        resume_in = "tmux" if os.environ.get("TMUX") else None
        try:
            result = open_session(session, resume_in=resume_in, others=others)
        except Exception as exc:  # noqa: BLE001 - shown, never a traceback on the panel
            self.call_from_thread(self.show_message, f"Cannot open this session: {exc}")
            return
        message = result.message[:1].upper() + result.message[1:]
        if result.outcome == Outcome.RESUME and result.command:
            self.call_from_thread(self.copy_to_clipboard, result.command)
            message += " (copied)"
        elif result.grant:
            message += f" Allow it in {result.grant}."
        self.call_from_thread(self.show_message, message)

    def open_folder(self, session: Session) -> None:
        if not session.cwd:
            return
        if opening.open_folder(session.cwd):
            self.show_message(f"Opened the project folder {session.cwd}")
        else:
            self.copy_to_clipboard(session.cwd)
            self.show_message(f"No file manager here. Project folder (copied): {session.cwd}")
