"""OpenCode's screen, as a reply or an answer from outside would read it: lunavect types into neither.

OpenCode draws its prompt and its permission dialog with its own widgets (a framed box whose placeholder and
selected option differ only in colour), and a permission is answered in it, or through its plugin, which
lunavect keeps a one-way reporter (its descriptor says so: `Client.answers_outside`). So neither reading
recognises anything, and a reply or an answer is refused with the reason; the resume command is named.
"""

from __future__ import annotations

from lunavect.core.pane_reading import Dialog, PromptReading


def read_prompt(screen: str) -> PromptReading:
    return PromptReading(None, "lunavect does not type into OpenCode's prompt")


def read_dialog(screen: str) -> Dialog | None:
    return None
