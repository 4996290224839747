"""Which kind of client a session was started in: a terminal CLI, or a desktop app or editor.

A session known only by its folder may be matched to the one terminal running an agent there, but a Desktop
or editor session never may: it is a different conversation that happens to share the folder. The client
writes its origin into the session's own log (Claude Code's `entrypoint`, Codex's `originator`); the collector
carries it to the snapshot (`Session.entrypoint`, `Session.client`), so returning to a task reads no log.
"""

from __future__ import annotations

import os

CLI = "cli"
APP = "app"

# Claude Code's entrypoints for a terminal session; every other named one is an app or editor.
_CLAUDE_CLI = {"cli"}
# Codex originators of its terminal clients; Desktop and editor originators are apps.
_CODEX_CLI = {"codex-tui", "codex_cli_rs", "codex_exec", "codex-exec", "codex_tui"}


def classify(provider: str, value: str | None) -> str | None:
    """CLI or APP for a client's own origin value; None when unknown."""
    if not value:
        return None
    if provider == "claude":
        return CLI if value in _CLAUDE_CLI else APP
    if provider == "codex":
        return CLI if value in _CODEX_CLI else APP
    return None


def resolved(path: str | None) -> str | None:
    """A folder with symlinks and `..` resolved, so two spellings of one folder compare equal."""
    if not path:
        return None
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None
