"""Reading and typing into one exact tmux pane: its screen, literal text, a key.

Every request goes through the terminals' runner (a 10-second limit, failures as values). Text is sent with
`send-keys -l` (literally: no key names, no paste) and Enter as a separate request, as both clients need;
text of several lines goes as one bracketed paste through a tmux buffer that the paste deletes.
"""

from __future__ import annotations

from dataclasses import dataclass

from lunavect.core import tmux_text
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run

BUFFER = "lunavect-reply"


@dataclass(frozen=True)
class TmuxPane:
    pane: tmux.Pane

    @property
    def target(self) -> str:
        return self.pane.pane_id

    def _run(self, *args: str) -> Reply:
        return run(tmux.argv(self.pane.socket, *args))

    def screen(self, escapes: bool = False) -> str | None:
        """What the pane shows now (with its colour escapes when asked), or None when tmux cannot say."""
        args = ["capture-pane", "-p", "-t", self.pane.pane_id] + (["-e"] if escapes else [])
        reply = self._run(*args)
        return reply.stdout if reply.ok else None

    def type(self, text: str) -> bool:
        if "\n" not in text:
            return self._run("send-keys", "-t", self.pane.pane_id, "-l", "--", tmux_text.argument(text)).ok
        if not self._run("set-buffer", "-b", BUFFER, "--", tmux_text.argument(text)).ok:
            return False
        return self._run("paste-buffer", "-p", "-d", "-b", BUFFER, "-t", self.pane.pane_id).ok

    def key(self, name: str) -> bool:
        """One key by tmux's name for it (`Enter`, `Escape`, `1`)."""
        return self._run("send-keys", "-t", self.pane.pane_id, name).ok

    def current_command(self) -> str | None:
        reply = self._run("display-message", "-p", "-t", self.pane.pane_id, "#{pane_current_command}")
        return reply.stdout.strip() if reply.ok else None
