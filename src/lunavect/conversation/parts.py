"""What a parser hands the window: messages, and tool results that join the call they answer."""

from __future__ import annotations

import msgspec

from lunavect.conversation.message import Message


class Attach(msgspec.Struct, frozen=True):
    """A tool result: shown on the call it answers."""

    place: str
    call_id: str
    result: str
    failed: bool = False
    at: str | None = None


class Echo(msgspec.Struct, frozen=True):
    """A prompt that a client records twice (Codex: a `user_message` event and the model input item). The
    item is shown only for rollouts that record no event (`ParserState.prompt_events`)."""

    message: Message

    @property
    def place(self) -> str:
        return self.message.place


Part = Message | Attach | Echo


def place(offset: int, index: int) -> str:
    return f"{offset}:{index}"


def place_key(text: str) -> tuple[int, int]:
    """A place as numbers, for ordering and for reading a window before it."""
    offset, _, index = text.partition(":")
    return int(offset), int(index or 0)
