"""The question the peek asks before it answers a permission: an answer reaches the agent at once (a deny stops
its turn), so no single key does it, however a habit from the list or another program presses it.

A small modal screen, as the row menu is: the answer named with the tool and the session, Enter gives it, Esc
(or the second option) keeps the session waiting. It closes with True only when the person chose the answer.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from lunavect.core.model import Session
from lunavect.core.terminal_text import clean

# Each answer's words, as the peek's title and this question say them.
ANSWER_WORDS = {"allow": "Allow", "allow-always": "Always allow", "deny": "Deny"}


def question(session: Session, answer: str) -> str:
    tool = clean(session.waiting_for or "the request", 40)
    return f"{ANSWER_WORDS[answer]} {tool} for “{clean(session.title or session.session_id[:8], 60)}”?"


class ConfirmAnswer(ModalScreen[bool]):
    """Give this answer to the session's permission, or keep it waiting."""

    BINDINGS = [Binding("escape", "dismiss(False)", "Keep waiting")]

    def __init__(self, session: Session, answer: str) -> None:
        super().__init__()
        self.session = session
        self.answer = answer

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Label(question(self.session, self.answer), id="menu-title", markup=False)
            yield OptionList(
                Option(f"{ANSWER_WORDS[self.answer]} (Enter)", id="answer"),
                Option("Keep it waiting (Esc)", id="wait"),
                id="menu-options",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id == "answer")
