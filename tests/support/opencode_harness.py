"""Run the real OpenCode 1.18.33 in an isolated HOME against the scripted Chat Completions API, and read lunavect.

- :func:`ensure_opencode`: the pinned client from npm, installed once per machine into
  ``$LUNAVECT_CLIENTS_DIR/opencode`` (under a file lock), its native binary linked by its own postinstall
  script as npm users get it (``bin/opencode.exe``, reached through ``node_modules/.bin/opencode``).
- :func:`prepare`: the iso HOME's OpenCode configuration: one ``@ai-sdk/openai-compatible`` provider on the
  scripted server (:meth:`chat_server.ChatServer.provider`), and what keeps OpenCode offline (see NOTES.md).
- :class:`OpenCodeTmux`: the interactive TUI in a private tmux server.

Observed with 1.18.33 (tests/clients/NOTES.md has the details): the provider package is built into the
binary (nothing is installed for it); OpenCode installs ``@opencode-ai/plugin`` into its configuration folder
in the background unless that folder has a ``node_modules`` and a lock naming it, which :func:`prepare` writes
(an empty folder and a one-line lock: lunavect's plugin imports nothing), and the registry points at a closed
port; the TUI is one native process (``opencode.exe``) that runs the plugins, the tools and the database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from chat_server import MODEL, ChatServer
from claude_tmux import CLIENTS_DIR, ClaudeTmux, ClientsMissing, IsoHome, _file_lock, process_under, wait_process_under

OPENCODE_VERSION = "1.18.33"
OPENCODE_DIR = CLIENTS_DIR / "opencode"
NPM_PACKAGE = f"opencode-ai@{OPENCODE_VERSION}"
#: The TUI draws its prompt box, with its agent and model line below the input.
READY_RE = re.compile(r"┃\s+Build · " + MODEL)
PERMISSION_RE = re.compile(r"Permission required")
QUESTION_RE = re.compile(r"enter submit\s+esc dismiss")


def find_opencode(root: Path = OPENCODE_DIR) -> Path | None:
    """The pinned `opencode` command (npm's link to the native binary), or None when it is not installed."""
    command = root / "node_modules" / ".bin" / "opencode"
    try:
        version = json.loads((root / "node_modules" / "opencode-ai" / "package.json").read_text())["version"]
        native = os.path.getsize(os.path.realpath(command)) > 1_000_000  # not the launcher script: linked
    except (OSError, ValueError, KeyError):
        return None
    return command if version == OPENCODE_VERSION and native else None


def ensure_opencode(root: Path = OPENCODE_DIR, timeout: float = 1800) -> Path:
    """The pinned client, installed from npm once (in the real environment, under a file lock) if missing."""
    found = find_opencode(root)
    if found:
        return found
    with _file_lock(root.parent / (root.name + ".lock")):
        found = find_opencode(root)
        if found:
            return found
        npm, node = shutil.which("npm"), shutil.which("node")
        if not npm or not node:
            raise ClientsMissing(f"OpenCode {OPENCODE_VERSION} is not in {root} and npm or node is not on PATH")
        root.mkdir(parents=True, exist_ok=True)
        if not (root / "package.json").exists():  # keep npm from adopting a parent project
            (root / "package.json").write_text(json.dumps({"name": "lunavect-test-opencode", "private": True}) + "\n")
        with open(root / "npm.log", "ab") as log:
            for cmd, cwd in (
                ([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", NPM_PACKAGE], root),
                # Its postinstall links the platform's native binary as bin/opencode.exe (every OS).
                ([node, "postinstall.mjs"], root / "node_modules" / "opencode-ai"),
            ):
                proc = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
                if proc.returncode != 0:
                    raise ClientsMissing(f"`{' '.join(cmd)}` failed in {cwd} (exit {proc.returncode}); see npm.log")
        found = find_opencode(root)
        if not found:
            raise ClientsMissing(f"OpenCode {OPENCODE_VERSION} did not install into {root}; see npm.log")
        return found


def config_dir(iso: IsoHome) -> Path:
    return Path(iso.env["XDG_CONFIG_HOME"]) / "opencode"


def database(iso: IsoHome) -> Path:
    return Path(iso.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db"


def plugin_file(iso: IsoHome) -> Path:
    return config_dir(iso) / "plugin" / "lunavect.js"


def opencode_env(iso: IsoHome, command: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The iso environment plus what keeps OpenCode from the network and its updater, with `opencode` on PATH."""
    env = dict(iso.env)
    env.update(
        {
            "PATH": f"{command.parent}{os.pathsep}{env.get('PATH', '')}",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            # Anything OpenCode would still fetch from npm fails at once instead of reaching the registry.
            "npm_config_registry": "http://127.0.0.1:9/",
            "NPM_CONFIG_REGISTRY": "http://127.0.0.1:9/",
        }
    )
    if extra:
        env.update(extra)
    return env


def prepare(iso: IsoHome, server: ChatServer, *, permission: dict | None = None, context: int = 100000) -> Path:
    """OpenCode's configuration in the iso HOME: the scripted provider as its model (and its small model, which
    writes titles), `permission` rules (e.g. ``{"bash": "ask"}``), and a configuration folder OpenCode installs
    nothing into."""
    folder = config_dir(iso)
    folder.mkdir(parents=True, exist_ok=True)
    provider = server.provider()
    provider["models"][MODEL]["limit"]["context"] = context
    config: dict = {
        "$schema": "https://opencode.ai/config.json",
        "model": f"scripted/{MODEL}",
        "small_model": f"scripted/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        "provider": {"scripted": provider},
    }
    if permission is not None:
        config["permission"] = permission
    (folder / "opencode.json").write_text(json.dumps(config, indent=2))
    (folder / "node_modules").mkdir(exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": OPENCODE_VERSION}}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    return folder / "opencode.json"


def without_plugin(iso: IsoHome) -> None:
    """No lunavect plugin for OpenCode (the iso fixture's `hooks install` wrote it)."""
    plugin_file(iso).unlink(missing_ok=True)


def is_opencode(info: dict) -> bool:
    return info["comm"] in ("opencode", "opencode.exe")


def opencode_pid(root_pid: int, timeout: float = 20) -> int:
    """The native OpenCode process at or under the pane's process."""
    return wait_process_under(root_pid, is_opencode, "opencode process", timeout)


class OpenCodeTmux(ClaudeTmux):
    """The real OpenCode TUI in a pane of a private tmux server."""

    client = "opencode"

    def wait_ready(self, timeout: float = 60.0) -> str:
        return self._wait_screen(READY_RE.search, timeout)

    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.5, timeout: float = 20.0) -> None:
        """Type `text` literally, wait until the prompt box shows it, then press Enter."""
        self.tmux("send-keys", "-t", self.target, "-l", text)
        self.wait_for_screen(re.compile(r"┃\s+" + re.escape(text[:40])), timeout=timeout)
        if enter:
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")

    def pid(self, timeout: float = 10.0) -> int:
        return self._find_pid(lambda pane: process_under(pane, is_opencode), timeout)


def start_tui(
    command: Path, iso: IsoHome, env: dict[str, str], *args: str, cwd: Path | None = None, name: str = "opencode"
) -> OpenCodeTmux:
    tui = OpenCodeTmux(command, env, cwd or iso.work, args, root=iso.root, session=name, width=160, height=48)
    tui.start()
    tui.wait_ready()
    return tui
