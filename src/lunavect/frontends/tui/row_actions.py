"""What the person asks of one row in the panel, and the words that say it was done: hide, restore, pin,
dismiss, move, return to the session, show its project folder.

Plain functions of the store and the session, so the screen that received the request only shows their words:
every change goes through `lunavect.listing.arrangement`, as the CLI's and the web panel's do, and returning to
a session goes through `lunavect.navigation`, the code of `lunavect open`.
"""

from __future__ import annotations

import sqlite3

from lunavect.core.model import Session
from lunavect.frontends.tui import opening
from lunavect.frontends.tui.messages import RowAction
from lunavect.listing import arrangement


def title_of(session: Session) -> str:
    return f"“{session.title or session.session_id[:8]}”"


def arrange(
    conn: sqlite3.Connection,
    history: arrangement.HideHistory,
    action: RowAction,
    session: Session,
    target: str | None,
    now: float,
) -> str | None:
    """Make the change of the list's arrangement that `action` asks for; the line that says it, if any.

    Raises `arrangement.ArrangeError` (its words are for the person) and `sqlite3.Error`.
    """
    name = title_of(session)
    if action == "hide":
        if history.hide(conn, session.id, now):
            return f"Hid {name}. Its work goes on. Ctrl+Z (Undo) brings it back."
    elif action == "restore":
        if arrangement.unhide(conn, session.id, now):
            return f"Restored {name} to the list."
    elif action == "pin":
        if session.pinned:
            arrangement.unpin(conn, session.id)
            return f"Unpinned {name}."
        arrangement.pin(conn, session.id)
        return f"Pinned {name}."
    elif action == "dismiss":
        if session.dismissed:
            arrangement.undismiss(conn, session.id)
            return f"{name} needs you again."
        arrangement.dismiss(conn, session.id, now)
        return f"Dismissed {name}: it stays listed, and needs you again at its next reply or error."
    elif action in ("move_before", "move_after") and target is not None:
        move = arrangement.move_before if action == "move_before" else arrangement.move_after
        if move(conn, session.id, target, now):
            return arrangement.moved_words(name, session.pinned)
    return None


def open_outcome(session: Session, others: list[Session], resume: bool = False) -> tuple[str, str | None]:
    """Return to the session (its exact pane or tab), or find its resume command once it has finished: the line
    that says what happened, and the resume command when the session has finished and nothing was run (the panel
    asks what to do with it: `resume_screen`). With `resume`, a finished session resumes in a new tmux window
    (the person pressed the key that says so).

    Reads the process table and may wait for a terminal to answer: run it off the screen's thread.
    """
    from lunavect.navigation.navigate import open_session
    from lunavect.navigation.open_result import Outcome

    try:
        result = open_session(session, resume_in="tmux" if resume else None, others=others)
    except Exception as exc:  # noqa: BLE001 - shown, never a traceback on the panel
        return f"Cannot open this session: {exc}", None
    message = result.message[:1].upper() + result.message[1:]
    if result.outcome == Outcome.RESUME and result.command:
        return message, result.command
    if result.grant:
        message += f" Allow it in {result.grant}."
    return message, None


def folder_outcome(cwd: str) -> tuple[str, str | None]:
    """Show the project folder in the file manager: the line that says so, and, where there is no file
    manager, the folder to copy instead."""
    if opening.open_folder(cwd):
        return f"Opened the project folder {cwd}", None
    return f"No file manager here. Project folder (copied): {cwd}", cwd
