"""Which kind of client a session was started in: a terminal CLI, or a desktop app or editor.

A session known only by its folder may be matched to the one terminal running an agent there, but a Desktop
or editor session never may: it is a different conversation that happens to share the folder. The client
writes its origin into the session's own log (Claude Code's `entrypoint`, Codex's `originator`); only that
one value is kept from a bounded read of the log's start, never any text.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from lunavect.claude.discovery import transcript_path

# How much of a log's start is searched for its origin.
HEAD_BYTES = 256 * 1024

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


def codex_rollout(codex_home: Path, session_id: str) -> Path | None:
    """The rollout of a Codex thread, found by the thread id in its file name."""
    if not re.fullmatch(r"[0-9A-Za-z-]{8,64}", session_id):
        return None
    root = codex_home / "sessions"
    try:
        matches = sorted(root.glob(f"*/*/*/rollout-*{session_id}*.jsonl"))
    except OSError:
        return None
    return matches[-1] if matches else None


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES)
    except OSError:
        return b""


def _field_in_records(head: bytes, record_field: str, key: str | None = None) -> str | None:
    """The first string value of `record_field` at the top of a record (or of its `key` object), in the
    complete lines of `head`. Only that value is kept; the rest of each line is dropped unread."""
    needle = f'"{record_field}"'.encode()
    lines = head.split(b"\n")
    if not head.endswith(b"\n"):
        lines.pop()  # a line cut off by the read limit
    for line in lines:
        if needle not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and key is not None:
            record = record.get(key)
        value = record.get(record_field) if isinstance(record, dict) else None
        if isinstance(value, str) and 0 < len(value) <= 64:
            return value
    return None


def origin_value(provider: str, session_id: str, cwd: str | None, config_dir: Path, codex_home: Path) -> str | None:
    """The client's own origin value for a session (`cli`, `claude-vscode`, `codex-tui`, ...), or None."""
    if provider == "claude" and cwd:
        return _field_in_records(_head(Path(transcript_path(config_dir, cwd, session_id))), "entrypoint")
    if provider == "codex":
        rollout = codex_rollout(codex_home, session_id)
        return _field_in_records(_head(rollout), "originator", key="payload") if rollout else None
    return None


def resolved(path: str | None) -> str | None:
    """A folder with symlinks and `..` resolved, so two spellings of one folder compare equal."""
    if not path:
        return None
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None
