"""Which kind of client a session was started in: a terminal CLI, or a desktop app or editor.

A session known only by its folder may be matched to the one terminal running an agent there, but a Desktop
or editor session never may: it is a different conversation that happens to share the folder. The client
writes its origin into the session's own log (Claude Code's `entrypoint`, Codex's `originator`); the collector
carries it to the snapshot (`Session.entrypoint`, `Session.client`), so returning to a task reads no log.
"""

from __future__ import annotations

from lunavect.core.clients import by_id

CLI = "cli"
APP = "app"


def classify(provider: str, value: str | None) -> str | None:
    """CLI or APP for a client's own origin value (its descriptor names the values of a terminal session; every
    other named one is an app or editor); None when unknown."""
    client = by_id(provider)
    if not value or client is None:
        return None
    return CLI if value in client.origins.terminal else APP
