"""The panel's peek: a lower pane with the focused session's latest messages, live while it works, scrollable
back through older windows, with a reply box and the permission answers.

The messages are read from the client's own files through lunavect.conversation (a bounded window, then
only appended bytes) and redrawn one widget per message, only where a mark changed. Replies and answers go
through lunavect.navigation.reply, the same checks as `lunavect reply` and `lunavect answer`; nothing the
pane shows or sends is stored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message as TextualMessage
from textual.widgets import Input, Static

from lunavect.conversation.follow import Follower
from lunavect.conversation.message import Message
from lunavect.conversation.render import render, skipped_note
from lunavect.conversation.source import Source
from lunavect.conversation.window import read_window
from lunavect.conversation.window_parts import Unreadable
from lunavect.core import clients
from lunavect.core.model import Session, State
from lunavect.core.terminal_text import clean
from lunavect.frontends import rows
from lunavect.frontends.tui.confirm import ConfirmAnswer
from lunavect.frontends.tui.messages import PeekClosed, Report
from lunavect.listing.conversation import find_source

# How many messages a window holds, and how often the followed file is looked at.
WINDOW_MESSAGES = 50
POLL_S = 0.25
HELP = "[ older · Tab reply · Esc close"
# The answer keys exist only while the session waits for a permission, and each asks before it answers
# (`confirm.ConfirmAnswer`): no key of the list (`n` is Next) and no single key press answers.
ANSWER_HELP = "y allow · A always allow · d deny (each asks first)"
ANSWER_KEYS = {"y": "allow", "A": "allow-always", "d": "deny"}


class Asked(TextualMessage):
    """A key of the log or the reply box, for the pane: `older`, `close`, or a permission answer."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what


class PeekLog(VerticalScroll, can_focus=True):
    """The messages, oldest first; keys for older windows and, while a permission is pending, its answers."""

    BINDINGS = [
        Binding("left_square_bracket", "ask('older')", "Older", show=True),
        Binding("y", "ask('allow')", "Allow", show=True),
        Binding("A", "ask('allow-always')", "Always allow", show=True),
        Binding("d", "ask('deny')", "Deny", show=True),
        Binding("escape", "ask('close')", "Close peek", show=True),
    ]

    def __init__(self, pending: Callable[[], bool], *, id: str | None = None) -> None:  # noqa: A002
        """`pending`: whether the followed session waits for a permission (its answer keys exist only then)."""
        super().__init__(id=id)
        self.pending = pending

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "ask" and parameters and parameters[0] in ANSWER_KEYS.values():
            return self.pending()  # otherwise the key is not there: it goes on to the panel's keys, if any
        return True

    def action_ask(self, what: str) -> None:
        self.post_message(Asked(what))


class ReplyInput(Input):
    BINDINGS = [Binding("escape", "ask('close')", "Close peek", show=False)]

    def action_ask(self, what: str) -> None:
        self.post_message(Asked(what))


class PeekPane(Vertical):
    """Shown under the list while the person peeks; follows the focused row. Its notes and a reply's outcome
    go up as `messages.Report`, its closing as `messages.PeekClosed`."""

    def __init__(
        self,
        *,
        focused: Callable[[], Session | None],
        everyone: Callable[[], list[Session]],
        connect: Callable[[], sqlite3.Connection | None],
        id: str | None = None,  # noqa: A002 - Textual's name
    ) -> None:
        super().__init__(id=id)
        self.focused, self.everyone, self.connect = focused, everyone, connect
        self.session: Session | None = None
        self.source: Source | None = None
        self.follower: Follower | None = None
        self.widgets: dict[str, Static] = {}
        self.older: str | None = None  # where the next older window ends
        self.display = False

    def compose(self) -> ComposeResult:
        yield Static("", id="peek-title", markup=False)
        yield PeekLog(self.pending, id="peek-log")
        yield ReplyInput(placeholder="Reply (Enter sends, only while the session waits)", id="peek-reply")

    def on_mount(self) -> None:
        # Polls only while open: a closed peek costs an idle panel nothing.
        self._poll = self.set_interval(POLL_S, self.refresh_peek, pause=True)

    # -- what is shown ------------------------------------------------------------------------------------

    def open(self) -> None:
        self.display = True
        self._poll.resume()
        self.refresh_peek()
        self.query_one(PeekLog).focus()

    def close(self) -> None:
        self.display = False
        self._poll.pause()
        self.session = self.source = self.follower = None
        self._clear()
        self.post_message(PeekClosed())

    def pending(self) -> bool:
        """Whether the followed session waits for a permission that lunavect may answer from here (a client
        whose prompts are answered only in itself has no answer keys)."""
        session = self.session
        if session is None or session.state != State.PERMISSION:
            return False
        client = clients.by_id(session.provider)
        return client is None or client.reply.answers_outside

    def _show_title(self, session: Session) -> None:
        """The session, its state in the list's words, and the keys that work now (the answers only while a
        permission is pending)."""
        head = f"{clean(session.title or session.session_id, 60)} · {clean(rows.state_label(session))}"
        answers = f" · {ANSWER_HELP}" if self.pending() else ""  # first: what matters most while it waits
        if self.source is None:
            self._title(f"{head}{answers} · this machine holds no conversation file for it")
        else:
            self._title(f"{head}{answers} · {HELP}")
        self.app.refresh_bindings()

    def report(self, text: str) -> None:
        self.post_message(Report(text))

    @on(Asked)
    def _asked(self, event: Asked) -> None:
        event.stop()
        if event.what == "older":
            self.load_older()
        elif event.what == "close":
            self.close()
        else:
            self.answer(event.what)

    def _clear(self) -> None:
        for widget in self.widgets.values():
            widget.remove()
        self.widgets = {}
        self.older = None

    def _title(self, words: str) -> None:
        self.query_one("#peek-title", Static).update(words)

    def _follow(self, session: Session | None) -> None:
        """Start following `session` (the focused row), from its latest window."""
        self._clear()
        self.session, self.follower = session, None
        if session is None:
            self._title("No session is focused.")
            return
        self.source = find_source(session.provider, session.session_id, self.connect())
        self._show_title(session)
        if self.source is not None:
            self.follower = Follower(self.source, messages=WINDOW_MESSAGES)

    def refresh_peek(self) -> None:
        """Follow the focused row; draw what was appended or changed since the last look."""
        if not self.display:
            return
        focused = self.focused()
        if focused is None or self.session is None or focused.id != self.session.id:
            self._follow(focused)
        elif rows.state_label(focused) != rows.state_label(self.session):
            self.session = focused
            self._show_title(focused)
        if self.follower is None:
            return
        try:
            update = self.follower.poll()
        except Unreadable as exc:
            self._title(str(exc))
            return
        if update.reset:
            self._clear()
            if self.follower.messages and self.follower.messages[0] is not None:
                self.older = self.follower.messages[0].place
        if update.skipped:
            self.report(skipped_note(update.skipped))
        self._draw(update.changed)

    def _draw(self, changed: list[Message], before: bool = False) -> None:
        log = self.query_one(PeekLog)
        at_end = log.scroll_y >= log.max_scroll_y - 1
        first = next(iter(self.widgets.values()), None)
        for message in changed:
            text = "\n".join(render(message))
            widget = self.widgets.get(message.place)
            if widget is not None:
                widget.update(text)  # only this message is drawn again
                continue
            widget = Static(text, markup=False, classes=f"peek-{message.kind.value}")
            self.widgets[message.place] = widget
            if before and first is not None:
                log.mount(widget, before=first)
            else:
                log.mount(widget)
        if at_end and not before:
            log.scroll_end(animate=False)

    def load_older(self) -> None:
        """The window before the oldest message shown, added above it."""
        if self.source is None or self.older is None:
            return
        try:
            window = read_window(self.source, before=self.older, messages=WINDOW_MESSAGES)
        except Unreadable as exc:
            self.report(str(exc))
            return
        fresh = [m for m in window.messages if m.place not in self.widgets]
        self._draw(fresh, before=True)
        self.older = window.start if window.older else None
        if self.older is None:
            self.report("This is the start of the conversation.")
        elif window.skipped:
            self.report(skipped_note(window.skipped))

    # -- acting -------------------------------------------------------------------------------------------

    @on(Input.Submitted, "#peek-reply")
    def send_reply(self, event: Input.Submitted) -> None:
        if self.session is None or not event.value.strip():
            return
        self._act(self.session, "reply", event.value)
        event.input.value = ""

    def answer(self, choice: str) -> None:
        """Ask first, then answer: only while the session still waits for that permission."""
        session = self.session
        if session is None or not self.pending():
            return

        def chosen(confirmed: bool | None) -> None:
            now = self.session
            if confirmed and now is not None and now.id == session.id and self.pending():
                self._act(now, choice, "")

        self.app.push_screen(ConfirmAnswer(session, choice), chosen)

    @work(thread=True, exclusive=True, group="peek-act")
    def _act(self, session: Session, what: str, text: str) -> None:
        from lunavect.navigation.reply import answer, reply

        others = [s for s in self.everyone() if s.id != session.id]
        if what == "reply":
            result = reply(session, text, state=session.state, others=others)
        else:
            result = answer(session, what, state=session.state, expected_tool=session.waiting_for, others=others)
        self.report(result.message)
