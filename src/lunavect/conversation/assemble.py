"""Parts in file order made into the messages a viewer shows: results joined to their calls, a prompt's echo
dropped where the client recorded the prompt as an event just before it, a message the client wrote again
(the same `key`) shown once in its latest form, every message marked."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from lunavect.conversation.message import Kind, Message, marked
from lunavect.conversation.parts import Attach, Echo, Part


class Assembly:
    """Messages held in order; a result joins its call while the call is held. Bounded by the caller, who
    trims old messages (`trim`) so a follow's memory stays flat."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: dict[str, int] = {}
        # Where each keyed message is held, so that the client's later version of it replaces it.
        self.keys: dict[str, int] = {}
        # The text of the latest prompt a client recorded as an event (Codex `user_message`): the input item
        # that repeats it, written after it, is an echo.
        self.prompt_event: str | None = None
        self.changed: list[Message] = []

    def add(self, parts: Iterable[Part]) -> None:
        for part in parts:
            if isinstance(part, Echo):
                if part.message.text != self.prompt_event:
                    self._append(part.message)
                self.prompt_event = None
            elif isinstance(part, Attach):
                self._attach(part)
            else:
                if part.kind == Kind.PROMPT:
                    self.prompt_event = part.text
                self._append(part)

    def _append(self, message: Message) -> None:
        held = self.keys.get(message.key) if message.key else None
        if held is not None and held < len(self.messages) and self.messages[held].key == message.key:
            # Written again by its client: its latest form, at the place it first stood (a viewer redraws it).
            message = marked(msgspec.structs.replace(message, place=self.messages[held].place))
            self.messages[held] = message
            if message.kind == Kind.TOOL and message.call_id:
                self.calls[message.call_id] = held
            self.changed.append(message)
            return
        message = marked(message)
        if message.kind == Kind.TOOL and message.call_id:
            self.calls[message.call_id] = len(self.messages)
        if message.key:
            self.keys[message.key] = len(self.messages)
        self.messages.append(message)
        self.changed.append(message)

    def _attach(self, part: Attach) -> None:
        at = self.calls.pop(part.call_id, None)
        if at is not None and at < len(self.messages) and self.messages[at].call_id == part.call_id:
            joined = marked(msgspec.structs.replace(self.messages[at], result=part.result, failed=part.failed))
            self.messages[at] = joined
            self.changed.append(joined)
        # A result whose call is not held belongs to a message older than the window: it shows with its call
        # when that is read, never on its own, so every read of the same bytes shows the same messages.

    def trim(self, keep: int) -> None:
        """Keep the newest `keep` messages; calls that leave can no longer be joined."""
        drop = len(self.messages) - keep
        if drop <= 0:
            return
        self.messages = self.messages[drop:]
        self.calls = {call: at - drop for call, at in self.calls.items() if at >= drop}
        self.keys = {key: at - drop for key, at in self.keys.items() if at >= drop}
        held = {m.place for m in self.messages}
        self.changed = [m for m in self.changed if m.place in held]

    def take_changed(self) -> list[Message]:
        """The messages added or changed since the last call, each once (its latest form)."""
        latest: dict[str, Message] = {}
        for message in self.changed:
            latest[message.place] = message
        self.changed = []
        held = {m.place for m in self.messages}
        return [m for m in latest.values() if m.place in held]
