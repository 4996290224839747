"""The command a client runs for each hook event, and whether an installed one still reaches the shim.

The command names this installation's interpreter and the folder that holds its `lunavect` package, so
`hooks install` can say exactly what it wrote, and `hooks status` can tell a command that still runs
lunavect's shim from one whose virtual environment moved or was upgraded away (every event would be lost,
silently, because the shim's failures never reach the agent).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from lunavect.core.clients import CLAUDE

# The module the command imports and runs; its file in the package folder proves the folder still holds
# lunavect.
SHIM_MODULE = "lunavect.shim.entry"
# How lunavect recognises its own entries among the person's hooks: the shim's module (imported, or run as a
# file), and every form an earlier installation wrote (kept when the module moves, so install replaces them
# and uninstall removes them).
MARKERS = tuple(
    dict.fromkeys(
        (SHIM_MODULE, SHIM_MODULE.replace(".", "/") + ".py", "lunavect.hook", "lunavect/hook.py", "lunavect hook ")
    )
)
# The path of lunavect's HTTP hook listener, below which each client has its own (`/lunavect/hook/claude`):
# an `"type": "http"` handler whose URL holds it is lunavect's, whatever port it names.
HTTP_PATH_PREFIX = "/lunavect/hook/"
# The interpreter imports the shim from its cached bytecode, from the folder that holds this installation's
# package (passed as an argument, so `status` can check it still exists).
LAUNCHER = f"import sys;sys.path.insert(0,sys.argv.pop(1));import {SHIM_MODULE} as h;h.main()"


@dataclass(frozen=True)
class Http:
    """Where this installation's HTTP hooks go, for a client whose hooks can be HTTP hooks: the collector's
    listener's port and the per-install secret."""

    port: int
    secret: str


def shim_file() -> Path:
    from lunavect import shim  # the package only: its __init__ imports nothing, nor runs the entry point

    return Path(shim.__file__).resolve().with_name("entry.py")


def package_parent() -> Path:
    """The folder that holds this installation's `lunavect` package (site-packages, or `src/`)."""
    return shim_file().parents[len(SHIM_MODULE.split(".")) - 1]


def hook_command(client: str = CLAUDE.id, event: str | None = None) -> str:
    """The command the agent runs: this installation's interpreter on the shim, without `site`; `event` names
    the event it is installed for, for a client whose payloads do not name it.

    With -I -S and the module's cached bytecode it costs about one bare interpreter start, where the
    `lunavect` console script would first import site-packages and the CLI (bench/hook_shim.py).
    """
    words = (sys.executable, "-I", "-S", "-c", LAUNCHER, str(package_parent()), client, *([event] if event else []))
    return " ".join(shlex.quote(word) for word in words)


@dataclass(frozen=True)
class Target:
    """What an installed command runs: the interpreter and the folder it imports lunavect from."""

    interpreter: str
    package_parent: str | None


def this_target() -> Target:
    return Target(sys.executable, str(package_parent()))


def _holds_shim(folder: str) -> bool:
    base = os.path.join(folder, *SHIM_MODULE.split("."))
    return os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py"))


def still_runs(command: str) -> bool:
    """Whether the command's files are all there: each absolute path it names exists (a moved virtual
    environment, or one whose base Python was upgraded, leaves the interpreter missing or dangling), an
    absolute interpreter can be executed, and a folder still holds lunavect's shim."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    files = [w for w in words if w.startswith("/")]
    if words and words[0].startswith("/") and not (os.path.isfile(words[0]) and os.access(words[0], os.X_OK)):
        return False
    for word in files:
        if not os.path.exists(word):
            return False
        if os.path.isdir(word) and not _holds_shim(word):
            return False  # the folder is there, but lunavect was removed from it
    return bool(files)


def describe_target(target: Target | None = None) -> str:
    """What `hooks install` wrote, so a later `hooks status` saying "stale" can be understood."""
    target = target or this_target()
    return f"hook command: {target.interpreter} running lunavect's shim from {target.package_parent}"
