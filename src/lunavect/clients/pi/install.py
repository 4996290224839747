"""lunavect's extension in Pi's agent folder: written, checked and removed as one file of its own.

Pi has no hook commands; it loads every `extensions/*.ts` of its agent folder into its own process (places.py).
lunavect's is `extensions/lunavect.ts`: the package's extension.ts with this installation's spool path written
in, so `hooks status` can tell it current from one an older lunavect (or another installation) wrote. Nothing
else in the folder is touched: a file of that name that is not lunavect's is refused, never replaced, and
uninstall removes exactly lunavect's file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from lunavect import paths
from lunavect.clients.pi import places
from lunavect.core.clients import PI
from lunavect.install import own_file
from lunavect.install.outcome import installed
from lunavect.shim.spoolfile import SPOOL_FILE_NAME

# Every version of the extension begins with this line: how lunavect knows the file is its own.
MARK = "// lunavect's Pi extension"
_SPOOL = "__LUNAVECT_SPOOL__"

# The extension file cannot be written or removed as asked (the line to print).
ExtensionError = own_file.NotOurs


@dataclass(frozen=True)
class Status:
    path: Path
    state: str  # installed | missing | stale | unreadable
    detail: str = ""


def extension_text() -> str:
    """The extension as this installation writes it: its spool path in a JavaScript string (JSON's, all ASCII)."""
    template = resources.files("lunavect.clients.pi").joinpath("extension.ts").read_text(encoding="utf-8")
    return template.replace(_SPOOL, json.dumps(str(paths.spool_dir() / SPOOL_FILE_NAME)), 1)


def status() -> Status:
    path = places.extension_path()
    try:
        found = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Status(path, "missing")
    except (OSError, UnicodeDecodeError) as exc:
        return Status(path, "unreadable", f"cannot read it: {exc}")
    if not found.startswith(MARK):
        return Status(path, "unreadable", "an extension of that name that is not lunavect's")
    if found != extension_text():
        return Status(path, "stale", "written by another lunavect installation or version")
    return Status(path, "installed")


def install() -> bool:
    """Write the extension (or bring it up to date); False when it already was."""
    return own_file.install(status(), extension_text(), mode=0o644)


def uninstall() -> bool:
    """Remove lunavect's extension and nothing else; False when there was none."""
    return own_file.uninstall(status())


def describe_install(changed: bool) -> str:
    return f"{installed(PI.id, changed, places.extension_path())} (loaded when Pi starts)"


def describe_status(status: Status) -> str:
    line = f"{PI.id}: {'stale: reinstall' if status.state == 'stale' else status.state} ({status.path})"
    return f"{line}: {status.detail}" if status.detail else line
