"""The panel's messages: what a widget or a view tells the screen that owns it.

Textual's rule for widgets that work together is "attributes down, messages up": an owner sets its children's
attributes and calls their methods; a child never reaches into its owner or a sibling, it says what happened
and its owner acts. The list says which row the person asked about, the search field that the person left it,
the peek that it closed or has something to say; the panel's screen does the rest.
"""

from __future__ import annotations

from typing import Literal

from textual.message import Message

from lunavect.core.model import Session

# What the person can ask of one row (the keys, the mouse and the row menu).
RowAction = Literal[
    "open", "hide", "restore", "pin", "dismiss", "menu", "move_before", "move_after", "folder", "copy_resume"
]
# The row menu offers these besides: a move by one place, which the panel turns into a move before or after
# the neighbour it finds in the list as shown.
MenuChoice = RowAction | Literal["move_up", "move_down"]


class RowRequest(Message):
    """The person asked for `action` on `session`; for a move, `target` is the row to move before or after."""

    def __init__(self, action: RowAction, session: Session, target: str | None = None) -> None:
        super().__init__()
        self.action: RowAction = action
        self.session = session
        self.target = target


class LeftTop(Message):
    """Up was pressed on the list's first row: the focus goes back to the search field."""


class LeftSearch(Message):
    """Down or Enter in the search field: the focus goes to the list's first row."""


class PeekClosed(Message):
    """The peek closed: the focus goes back to the list."""


class Report(Message):
    """A line for the top of the panel (a reply's outcome, lines of a conversation that were skipped)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
