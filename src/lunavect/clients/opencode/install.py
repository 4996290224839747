"""lunavect's plugin in OpenCode's configuration: written, checked and removed as one file of its own.

OpenCode has no hook commands; it loads every `plugin/*.js` of its configuration folder into its server
(places.py). lunavect's is `plugin/lunavect.js`: the package's plugin.js with this installation's spool path
written in, so `hooks status` can tell it current from one an older lunavect (or another installation) wrote.
Nothing else in the folder is touched: a file of that name that is not lunavect's is refused, never replaced,
and uninstall removes exactly lunavect's file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from lunavect import paths
from lunavect.clients.opencode import places
from lunavect.core.clients import OPENCODE
from lunavect.install import own_file
from lunavect.install.outcome import installed
from lunavect.shim.spoolfile import SPOOL_FILE_NAME

# Every version of the plugin begins with this line: how lunavect knows the file is its own.
MARK = "// lunavect's OpenCode plugin"
_SPOOL = "__LUNAVECT_SPOOL__"


# The plugin file cannot be written or removed as asked (the line to print).
PluginError = own_file.NotOurs


@dataclass(frozen=True)
class Status:
    path: Path
    state: str  # installed | missing | stale | unreadable
    detail: str = ""


def plugin_text() -> str:
    """The plugin as this installation writes it: its spool path in a JavaScript string (JSON's, all ASCII)."""
    template = resources.files("lunavect.clients.opencode").joinpath("plugin.js").read_text(encoding="utf-8")
    return template.replace(_SPOOL, json.dumps(str(paths.spool_dir() / SPOOL_FILE_NAME)), 1)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def status() -> Status:
    path = places.plugin_path()
    try:
        found = _read(path)
    except (OSError, UnicodeDecodeError) as exc:
        return Status(path, "unreadable", f"cannot read it: {exc}")
    if found is None:
        return Status(path, "missing")
    if not found.startswith(MARK):
        return Status(path, "unreadable", "a plugin of that name that is not lunavect's")
    if found != plugin_text():
        return Status(path, "stale", "written by another lunavect installation or version")
    return Status(path, "installed")


def install() -> bool:
    """Write the plugin (or bring it up to date); False when it already was."""
    return own_file.install(status(), plugin_text(), mode=0o644)


def uninstall() -> bool:
    """Remove lunavect's plugin and nothing else; False when there was none."""
    return own_file.uninstall(status())


def describe_install(changed: bool) -> str:
    return f"{installed(OPENCODE.id, changed, places.plugin_path())} (loaded when OpenCode starts)"


def describe_status(status: Status) -> str:
    line = f"{OPENCODE.id}: {'stale: reinstall' if status.state == 'stale' else status.state} ({status.path})"
    return f"{line}: {status.detail}" if status.detail else line
