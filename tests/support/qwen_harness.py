"""Run the real Qwen Code 0.24.4 in an isolated HOME against the scripted Chat Completions API, and read lunavect.

- :func:`ensure_qwen`: the pinned client from npm, installed once per machine into ``$LUNAVECT_CLIENTS_DIR/qwen``
  (under a file lock): plain Node JavaScript, ``node_modules/.bin/qwen``.
- :func:`qwen_env`: the iso environment plus the scripted server as its OpenAI-compatible model
  (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``) and nothing that reaches the network.
- :func:`prepare`: its ``~/.qwen/settings.json`` choosing that provider, quiet (no update check, telemetry, welcome
  back or follow-up suggestions, no auto memory), lunavect's hooks (the iso fixture's) kept.
- :class:`QwenTmux`: the interactive client in a private tmux server (its screen, its process).

Observed with 0.24.4 (tests/clients/NOTES.md has the details): ``node_modules/.bin/qwen`` is a node script that
relaunches itself once as ``node …/cli.js``: that last node process is the session, its hooks' parent. It streams
``POST /v1/chat/completions``, one request a model step. Its input box is ready once its placeholder shows.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import npm_clients
from chat_server import ChatServer, Step, tool_call
from claude_tmux import CLIENTS_DIR, ClaudeTmux, IsoHome, children, proc_info, process_under
from lunavect_probe import listed, wait_listed

QWEN_VERSION = "0.24.4"
QWEN_DIR = CLIENTS_DIR / "qwen"
PACKAGE = "@qwen-code/qwen-code"
MODEL = "m"
#: Its empty input box.
READY_RE = re.compile(r"Type your message or @path/to/file")
#: An approval (or its question tool's form) waiting.
WAITING_RE = re.compile(r"Waiting for user confirmation")
#: Its settings, apart from lunavect's hooks.
SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
    "ui": {"enableFollowupSuggestions": False, "enableUserFeedback": False, "enableWelcomeBack": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "tools": {"approvalMode": "default"},
}


def find_qwen(root: Path = QWEN_DIR) -> Path | None:
    """The pinned `qwen` command, or None."""
    return npm_clients.installed(root, PACKAGE, QWEN_VERSION, "qwen")


def ensure_qwen(root: Path = QWEN_DIR, timeout: float = 1800) -> Path:
    """The pinned client, installed from npm once (in the real environment, under a file lock) if missing."""
    return npm_clients.ensure(root, PACKAGE, QWEN_VERSION, "qwen", name="Qwen Code", timeout=timeout)


def qwen_home(iso: IsoHome) -> Path:
    return iso.home / ".qwen"


def qwen_env(iso: IsoHome, server: ChatServer, command: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The iso environment plus the scripted server as its model, with `qwen` on PATH."""
    env = dict(iso.env)
    env.update(
        {
            "PATH": f"{command.parent}{os.pathsep}{env.get('PATH', '')}",
            "OPENAI_API_KEY": "lunavect-test-key",
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_MODEL": MODEL,
            "npm_config_registry": "http://127.0.0.1:9/",
        }
    )
    if extra:
        env.update(extra)
    return env


def settings_path(iso: IsoHome) -> Path:
    return qwen_home(iso) / "settings.json"


def prepare(iso: IsoHome) -> Path:
    """Its settings (the iso fixture's `hooks install` may have written lunavect's hooks there: kept)."""
    path = settings_path(iso)
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = json.loads(path.read_text()) if path.exists() else {}
    settings.update(SETTINGS)
    path.write_text(json.dumps(settings, indent=2))
    return path


def without_hooks(iso: IsoHome) -> None:
    """No lunavect hooks for Qwen Code (the iso fixture's `hooks install` wrote them)."""
    path = settings_path(iso)
    settings = json.loads(path.read_text())
    settings.pop("hooks", None)
    path.write_text(json.dumps(settings, indent=2))


def chat_files(iso: IsoHome) -> list[Path]:
    return sorted((qwen_home(iso) / "projects").glob("*/chats/*.jsonl"))


def _runs_cli(info: dict | None) -> bool:
    return info is not None and info["comm"] == "node" and any(a.endswith("/cli.js") for a in info["cmdline"][1:3])


def is_session(info: dict) -> bool:
    """Its session's process: the last node running its `cli.js` (the launcher's, relaunched once)."""
    return _runs_cli(info) and not any(_runs_cli(proc_info(child)) for child in children(info["pid"]))


class QwenTmux(ClaudeTmux):
    """The real Qwen Code in a pane of a private tmux server."""

    client = "qwen"

    def wait_ready(self, timeout: float = 90.0) -> str:
        return self._wait_screen(lambda s: READY_RE.search(s) and not WAITING_RE.search(s), timeout)

    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.5, timeout: float = 30.0) -> None:
        """Type `text` literally once the input box is ready, wait until it shows it, then press Enter."""
        self.wait_ready(timeout)
        self.tmux("send-keys", "-t", self.target, "-l", text)
        self.wait_for_screen(re.compile(re.escape(text[:40])), timeout=timeout)
        if enter:
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")

    def pid(self, timeout: float = 30.0) -> int:
        return self._find_pid(lambda pane: process_under(pane, is_session), timeout)


def start_qwen(
    command: Path, iso: IsoHome, env: dict[str, str], *args: str, cwd: Path | None = None, name: str = "qwen"
) -> QwenTmux:
    """The client in its own tmux server, in `cwd` (the iso work folder), ready for a prompt."""
    client = QwenTmux(command, env, cwd or iso.work, [*args], root=iso.root, session=name, width=160, height=45)
    client.start()
    client.wait_ready()
    return client


def shell(command: str, *, description: str = "Runs a command") -> Step:
    """A call of its `run_shell_command` tool: the real client runs `command` (after its approval)."""
    return tool_call("run_shell_command", {"command": command, "description": description})


def ask(question: str, *choices: str) -> Step:
    """A call of its `ask_user_question` tool: one question offering `choices`."""
    options = [{"label": choice, "description": choice} for choice in choices]
    return tool_call(
        "ask_user_question",
        {"questions": [{"question": question, "header": "Choice", "options": options, "multiSelect": False}]},
    )


@contextmanager
def at_the_marker_permission(
    qwen: tuple[Path, IsoHome, dict[str, str]], server: ChatServer, *after: Step
) -> Iterator[tuple[QwenTmux, Path, dict]]:
    """The client started and asked to "make the marker", the model scripted to run `touch <marker>` and then
    `after`: (the client at its approval, the marker's path, the session in `permission`). Killed on leaving."""
    command, iso, env = qwen
    marker = iso.work / "marker"
    server.script(shell(f"touch {marker}"), *after)
    client = start_qwen(command, iso, env)
    try:
        client.send_text("make the marker")
        client.wait_for_screen(WAITING_RE, timeout=60)
        yield client, marker, wait_session(env, lambda s: s["state"] == "permission", timeout=40)
    finally:
        client.kill()


def wait_session(env: dict[str, str], where: Callable[[dict], bool], *, timeout: float = 60) -> dict:
    """Poll `lunavect list --json --all` until a Qwen Code session satisfies `where`; return it."""
    return wait_listed(env, "qwen", where, timeout=timeout)


def sessions(env: dict[str, str]) -> list[dict]:
    """The Qwen Code sessions in `lunavect list --json --all`."""
    return listed(env, "qwen")
