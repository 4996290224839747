"""What a session's terminal screen shows, read by its client's own reader: its prompt waiting for the person,
or a permission dialog with its options (the readers are the clients' own, reached through their faces;
their shapes are `lunavect.core.pane_reading`'s).

Typing into a terminal is only safe when the screen proves what will receive the keys, so the readers are
strict: anything they do not recognise is None, and the caller refuses; so is a screen of a client lunavect
has no face for.
"""

from __future__ import annotations

from lunavect import clients
from lunavect.core.pane_reading import Dialog, PromptReading

__all__ = ["Dialog", "PromptReading", "dialog", "offers_resend", "prompt_empty", "read_prompt"]


def read_prompt(provider: str, screen: str) -> PromptReading:
    face = clients.face_of(provider)
    if face is None:
        return PromptReading(None, f"lunavect does not read {provider}'s screen")
    return face.read_prompt(screen)


def prompt_empty(provider: str, screen: str) -> bool | None:
    """True when the client's prompt waits with nothing typed, False when it holds a draft, None when the
    screen shows no prompt (a dialog, another program)."""
    return read_prompt(provider, screen).empty


def dialog(provider: str, screen: str) -> Dialog | None:
    """The client's permission dialog on the screen, or None."""
    face = clients.face_of(provider)
    return face.read_dialog(screen) if face is not None else None


def offers_resend(provider: str, screen: str) -> bool:
    """Whether the client's screen invites the person to send their message again after a failed turn."""
    face = clients.face_of(provider)
    return face is not None and face.offers_resend(screen)
