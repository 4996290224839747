"""Where OpenCode keeps what lunavect reads and writes, derived only from the environment, as OpenCode derives it.

OpenCode follows the XDG base directories on every system (macOS included): its configuration, where it loads
plugins from (`{plugin,plugins}/*.{js,ts}` under it), is `$XDG_CONFIG_HOME/opencode` (else `~/.config/opencode`);
its data, the database among it, is `$XDG_DATA_HOME/opencode` (else `~/.local/share/opencode`). The database
is `opencode.db` there unless `OPENCODE_DB` names another: an absolute path, or a name inside the data folder
(observed with 1.18.33; its `:memory:` keeps nothing lunavect could read).
"""

from __future__ import annotations

import os
from pathlib import Path

# The plugin file lunavect writes, and the folder OpenCode loads it from.
PLUGIN_FOLDER = "plugin"
PLUGIN_NAME = "lunavect.js"


def _home() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def _xdg(variable: str, *fallback: str) -> Path:
    value = os.environ.get(variable, "").strip()
    return Path(value) if value.startswith("/") else _home().joinpath(*fallback)


def config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config") / "opencode"


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local", "share") / "opencode"


def plugin_path() -> Path:
    return config_dir() / PLUGIN_FOLDER / PLUGIN_NAME


def database_path() -> Path | None:
    """OpenCode's database, or None when `OPENCODE_DB` keeps it in memory."""
    named = os.environ.get("OPENCODE_DB", "").strip()
    if named == ":memory:":
        return None
    if named:
        return Path(named) if named.startswith("/") else data_dir() / named
    return data_dir() / "opencode.db"
