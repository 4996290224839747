"""Run the real Pi 0.73.1 in an isolated HOME against the scripted Chat Completions API, and read lunavect.

- :func:`ensure_pi`: the pinned client from npm, installed once per machine into ``$LUNAVECT_CLIENTS_DIR/pi``
  (under a file lock): plain Node JavaScript, ``node_modules/.bin/pi``.
- :func:`pi_env`: the iso environment plus ``PI_OFFLINE`` (no update, package or telemetry check, no ``fd``
  download) and ``PI_CODING_AGENT_DIR`` inside the iso HOME.
- :func:`prepare`: its ``models.json`` (one ``openai-completions`` provider on the scripted server) and
  ``settings.json`` choosing it.
- :class:`PiTmux`: the interactive client in a private tmux server (its screen, its process).

Observed with 0.73.1 (tests/clients/NOTES.md has the details): one node process that names itself ``pi`` (its
``comm``); it streams ``POST /v1/chat/completions``, one request a model step, none for a title; its editor takes
a prompt once its footer shows the model's window (``/100k``).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import npm_clients
from chat_server import ChatServer
from claude_tmux import CLIENTS_DIR, ClaudeTmux, IsoHome, process_under
from lunavect_probe import listed, wait_listed

PI_VERSION = "0.73.1"
PI_DIR = CLIENTS_DIR / "pi"
PACKAGE = "@mariozechner/pi-coding-agent"
MODEL = "m"
#: Its footer once the editor takes a prompt: the model's context window.
READY_RE = re.compile(r"/100k")
#: Its footer while the agent works.
WORKING_RE = re.compile(r"Working")


def find_pi(root: Path = PI_DIR) -> Path | None:
    """The pinned `pi` command, or None."""
    return npm_clients.installed(root, PACKAGE, PI_VERSION, "pi")


def ensure_pi(root: Path = PI_DIR, timeout: float = 1800) -> Path:
    """The pinned client, installed from npm once (in the real environment, under a file lock) if missing."""
    return npm_clients.ensure(root, PACKAGE, PI_VERSION, "pi", name="Pi", timeout=timeout)


def agent_dir(iso: IsoHome) -> Path:
    return iso.home / ".pi" / "agent"


def pi_env(iso: IsoHome, command: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The iso environment plus what keeps Pi off the network, with `pi` on PATH."""
    env = dict(iso.env)
    env.update(
        {
            "PATH": f"{command.parent}{os.pathsep}{env.get('PATH', '')}",
            "PI_OFFLINE": "1",
            "PI_CODING_AGENT_DIR": str(agent_dir(iso)),
            "npm_config_registry": "http://127.0.0.1:9/",
        }
    )
    if extra:
        env.update(extra)
    return env


def prepare(iso: IsoHome, server: ChatServer) -> Path:
    """`models.json` with the scripted server as its one provider, and `settings.json` choosing its model."""
    folder = agent_dir(iso)
    folder.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": server.base_url,
        "api": "openai-completions",
        "apiKey": "lunavect-test-key",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": MODEL, "reasoning": False, "input": ["text"], "contextWindow": 100000, "maxTokens": 4096}],
    }
    (folder / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}, indent=2))
    settings = {"defaultProvider": "scripted", "defaultModel": MODEL, "quietStartup": True}
    (folder / "settings.json").write_text(json.dumps(settings, indent=2))
    return folder


def extension_file(iso: IsoHome) -> Path:
    return agent_dir(iso) / "extensions" / "lunavect.ts"


def without_extension(iso: IsoHome) -> None:
    """No lunavect extension for Pi (the iso fixture's `hooks install` wrote it)."""
    extension_file(iso).unlink(missing_ok=True)


def session_files(iso: IsoHome) -> list[Path]:
    return sorted((agent_dir(iso) / "sessions").glob("*/*.jsonl"))


def _is_pi(info: dict) -> bool:
    return info["comm"] == "pi"


class PiTmux(ClaudeTmux):
    """The real Pi in a pane of a private tmux server."""

    client = "pi"

    def wait_ready(self, timeout: float = 60.0) -> str:
        return self._wait_screen(READY_RE.search, timeout)

    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.5, timeout: float = 30.0) -> None:
        """Type `text` literally once the editor is ready, wait until it shows it, then press Enter."""
        self.wait_ready(timeout)
        self.tmux("send-keys", "-t", self.target, "-l", text)
        self.wait_for_screen(re.compile(re.escape(text[:40])), timeout=timeout)
        if enter:
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")

    def pid(self, timeout: float = 30.0) -> int:
        return self._find_pid(lambda pane: process_under(pane, _is_pi), timeout)


def start_pi(
    command: Path, iso: IsoHome, env: dict[str, str], *args: str, cwd: Path | None = None, name: str = "pi"
) -> PiTmux:
    """The client in its own tmux server, in `cwd` (the iso work folder), ready for a prompt."""
    client = PiTmux(command, env, cwd or iso.work, [*args], root=iso.root, session=name, width=160, height=45)
    client.start()
    client.wait_ready()
    return client


def wait_session(env: dict[str, str], where, *, timeout: float = 60) -> dict:
    """Poll `lunavect list --json --all` until a Pi session satisfies `where`; return it."""
    return wait_listed(env, "pi", where, timeout=timeout)


def sessions(env: dict[str, str]) -> list[dict]:
    """The Pi sessions in `lunavect list --json --all`."""
    return listed(env, "pi")
