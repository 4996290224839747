"""Installing lunavect's hooks into Codex's `hooks.json`, trusting them, and taking them out again.

Codex 0.169.0 reads `$CODEX_HOME/hooks.json` (default `~/.codex`) in the same shape as Claude Code's
settings, so the same careful editing applies (`lunavect.install.hooks_file`): the person's own hooks stay
exactly as they were, a malformed file is refused with a one-line reason and left untouched, the write is
atomic and the previous version is kept beside it.

Codex runs a hook only once it is trusted: the trust is a `[hooks.state."<key>"] trusted_hash` entry in
`config.toml`, where the key and hash are Codex's own (listed by its app-server's `hooks/list`). lunavect
asks Codex's app-server for them and has Codex write the trust itself (`config/batchWrite`), so the person's
config.toml is edited by its owner, comments and all. Without a Codex executable the hooks are installed but
untrusted, and `status` says how to trust them.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from lunavect import paths
from lunavect.clients.codex import appserver
from lunavect.install import file_status
from lunavect.install.command import hook_command
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import HooksFileError, describe, entries, install_hooks, is_ours, load, uninstall_hooks
from lunavect.install.outcome import installed

# Every Codex 0.169.0 lifecycle event lunavect reads.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
    "SessionEnd",
)
# Codex clamps these two to 3 s (and warns on every run when asked for more).
TIMEOUTS = {"Interrupt": 3, "SessionEnd": 3}
TRUST_TIMEOUT_S = 10.0

SettingsError = HooksFileError


def hooks_path() -> Path:
    return paths.codex_home() / "hooks.json"


def config_path() -> Path:
    return paths.codex_home() / "config.toml"


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def our_keys(path: Path, settings: dict) -> dict[str, str]:
    """Codex's trust key of each of our handlers (`<hooks.json>:<event>:<group>:<handler>`), by event."""
    keys: dict[str, str] = {}
    for event, groups in settings.get("hooks", {}).items():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks", []) if isinstance(group, dict) else []
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if is_ours(handler):
                    keys[event] = f"{path}:{_snake(event)}:{g}:{h}"
    return keys


@dataclass
class Trust:
    """Whether Codex will run our hooks."""

    state: str  # trusted | untrusted | unverified | unknown
    detail: str = ""
    untrusted: list[str] = field(default_factory=list)


def _server() -> appserver.AppServer | None:
    executable = appserver.find_codex()
    if executable is None:
        return None
    home = os.environ.get("HOME") or "/"
    server = appserver.AppServer(executable, cwd=home if os.path.isdir(home) else "/")
    try:
        server.start()
    except (appserver.AppServerError, TimeoutError):
        return None
    return server


def _listed(server: appserver.AppServer, path: Path) -> list[dict]:
    """Our hooks as Codex lists them (key, hash, trust status)."""
    home = os.environ.get("HOME") or "/"
    result = server.request("hooks/list", {"cwds": [home]}, timeout=TRUST_TIMEOUT_S)
    found: dict[str, dict] = {}
    for entry in result.get("data") or []:
        for hook in (entry.get("hooks") if isinstance(entry, dict) else None) or []:
            if not isinstance(hook, dict) or not is_ours({"command": hook.get("command", "")}):
                continue
            source = hook.get("sourcePath")
            if isinstance(source, str) and os.path.realpath(source) == os.path.realpath(path):
                found[str(hook.get("key"))] = hook
    return list(found.values())


def trust(path: Path | None = None) -> Trust:
    """Have Codex trust our hooks in hooks.json (only ours); returns the trust that results."""
    path = path or hooks_path()
    server = _server()
    if server is None:
        return Trust("unknown", "no Codex executable answered; trust the hooks in Codex's /hooks")
    try:
        hooks = _listed(server, path)
        pending = {
            h["key"]: h["currentHash"]
            for h in hooks
            if h.get("trustStatus") not in ("trusted", "managed") and h.get("currentHash")
        }
        if pending:
            server.request(
                "config/batchWrite",
                {
                    "edits": [
                        {
                            "keyPath": "hooks.state",
                            "mergeStrategy": "upsert",
                            "value": {key: {"trusted_hash": digest} for key, digest in pending.items()},
                        }
                    ]
                },
                timeout=TRUST_TIMEOUT_S,
            )
            hooks = _listed(server, path)
        return _trust_of(hooks)
    except (appserver.AppServerError, TimeoutError, KeyError, TypeError) as exc:
        return Trust("unknown", f"Codex could not trust the hooks: {exc}")
    finally:
        server.close()


def _trust_of(hooks: list[dict]) -> Trust:
    if not hooks:
        return Trust("untrusted", "Codex does not list lunavect's hooks")
    untrusted = sorted(str(h.get("eventName")) for h in hooks if h.get("trustStatus") not in ("trusted", "managed"))
    if untrusted:
        return Trust("untrusted", "not trusted by Codex: " + ", ".join(untrusted), untrusted)
    return Trust("trusted")


def _trust_from_config(path: Path, settings: dict) -> Trust:
    """Without an app-server: are trust entries there for every one of our keys (hashes unverified)?"""
    try:
        config = tomllib.loads(config_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        config = {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Trust("unknown", f"cannot read {config_path()}: {exc}")
    state = config.get("hooks", {}).get("state", {}) if isinstance(config.get("hooks"), dict) else {}
    missing = [
        event
        for event, key in our_keys(path, settings).items()
        if not (isinstance(state.get(key), dict) and state[key].get("trusted_hash"))
    ]
    if missing:
        return Trust("untrusted", "not trusted by Codex: " + ", ".join(missing), missing)
    return Trust("unverified", "trusted in config.toml (no Codex executable to verify the hashes)")


@dataclass
class Status(FileStatus):
    """What hooks.json and Codex's trust say of lunavect's hooks."""

    trust: Trust | None = None


def status(path: Path | None = None, verify: bool = True) -> Status:
    path = path or hooks_path()
    try:
        settings = load(path)
    except HooksFileError as exc:
        return Status(path, "unreadable", detail=str(exc))
    found = entries(settings, EVENTS, hook_command("codex"))
    if found.state in ("missing", "stale"):
        return Status.of(path, found)
    present, missing = found.events, found.missing
    trusted = _verified_trust(path) if verify else None
    if trusted is None or trusted.state == "unknown":
        trusted = _trust_from_config(path, settings)
    if trusted.state == "untrusted":
        return Status(path, "untrusted", present, missing, detail=trusted.detail, trust=trusted)
    if missing:
        return Status(path, "partial", present, missing, trust=trusted)
    return Status(
        path, "installed", present, detail=trusted.detail if trusted.state != "trusted" else "", trust=trusted
    )


def _verified_trust(path: Path) -> Trust | None:
    server = _server()
    if server is None:
        return None
    try:
        return _trust_of(_listed(server, path))
    except (appserver.AppServerError, TimeoutError):
        return None
    finally:
        server.close()


@dataclass
class Result:
    changed: bool
    trust: Trust


def install(path: Path | None = None) -> Result:
    """Install or repair lunavect's hooks in hooks.json and have Codex trust them."""
    path = path or hooks_path()
    changed = install_hooks(path, hook_command("codex"), EVENTS, TIMEOUTS)
    return Result(changed, trust(path))


def uninstall(path: Path | None = None) -> bool:
    """Remove lunavect's hooks and nothing else; True when the file changed. (Codex ignores a trust entry
    whose hook is gone.)"""
    return uninstall_hooks(path or hooks_path())


# -- what the CLI prints (kept here so that the CLI stays a thin shell) ---------------------------------------


def describe_install(result: Result, path: Path | None = None) -> str:
    path = path or hooks_path()
    line = installed("codex", result.changed, path)
    if result.trust.state == "trusted":
        return line + " (trusted)"
    return line + f"; {result.trust.detail or 'not trusted yet'}"


def report(state: Status) -> dict:
    """The JSON form of a status."""
    return {**file_status.report(state, "hooks"), "trust": state.trust.state if state.trust else None}


def describe_status(state: Status) -> str:
    return describe("codex", state.state, state.path, state.detail, state.missing)
