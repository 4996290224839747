"""Qwen Code, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (every session's chat file) and hook mapping, the hooks installer (its settings.json), the
screen and title readers and the conversation files. Its hooks name the process (the session's node process
is their parent). The modules behind it are this package's own: callers never import them. The collector's
reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lunavect.clients import ChatFilesFace
from lunavect.clients.qwen import conversation, hooks, install, layout, pane
from lunavect.core.clients import QWEN

if TYPE_CHECKING:
    from lunavect.evidence.sources import Source


class QwenFace(ChatFilesFace):
    CLIENT = QWEN
    INSTALL = install
    HOOKS = hooks
    LAYOUT = layout
    PANE = pane
    CONVERSATION = conversation
    HOOKS_GIVE = "permission prompts, questions and exact states"

    def new_source(self) -> Source:
        """Its chat files: every Qwen Code session appears from them, hooks or not."""
        from lunavect.clients.qwen.source import QwenSource

        return QwenSource()


FACE = QwenFace()
