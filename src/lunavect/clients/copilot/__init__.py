"""GitHub Copilot CLI, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this
package.

The collector's source (every session's events file) and hook mapping, the hooks installer (a hooks file of
lunavect's own), the screen readers and the conversation files. Copilot CLI's hooks name the process (the native
binary that runs the session); the collector's reader (its source) is imported when first asked for; the rest is
light and comes with the face. The modules behind it are this package's own: callers never import them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import ModulesFace
from lunavect.clients.copilot import conversation, hooks, install, layout, pane
from lunavect.core.clients import COPILOT

if TYPE_CHECKING:
    from lunavect.evidence.sources import Source


class CopilotFace(ModulesFace[install.Status]):
    """Its hooks are a hooks file of lunavect's own (the command shim; Copilot CLI has no HTTP hooks lunavect
    uses, nothing more to ask of it)."""

    CLIENT = COPILOT
    INSTALL = install
    HOOKS = hooks
    PANE = pane
    CONVERSATION = conversation
    REFUSED = install.HooksError

    def new_source(self) -> Source:
        """Its events files: every Copilot CLI session appears from them, hooks or not."""
        from lunavect.clients.copilot.source import CopilotSource

        return CopilotSource()

    def home(self) -> Path:
        return layout.home()

    def hooks_file(self) -> Path:
        return install.hooks_path()

    def hooks_report(self, status: install.Status) -> dict:
        return install.report(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} hooks: installed. Its sessions also appear from their events files, hooks or not."]
        return [
            f"{name} hooks: {hooks}. Its sessions still appear from their events files;",
            "run `lunavect hooks install` for permission prompts, questions and exact states.",
        ]


FACE = CopilotFace()
