"""Run the real GitHub Copilot CLI 1.0.102 in an isolated HOME against the scripted Chat Completions API, and read
lunavect.

- :func:`ensure_copilot`: the pinned client from npm, installed once per machine into
  ``$LUNAVECT_CLIENTS_DIR/copilot`` (under a file lock), with its native binary (npm's optional dependency
  ``@github/copilot-<platform>``), and the JavaScript that binary unpacks at its first start unpacked once into a
  folder every test shares (``COPILOT_PKG_CACHE_HOME``: 235 MB, five seconds, not per test).
- :func:`copilot_env`: the iso environment plus what runs the client on the scripted server and nothing else
  (``COPILOT_OFFLINE``: no GitHub sign-in, telemetry or update; ``COPILOT_HOME`` inside the iso HOME).
- :func:`prepare`: ``$COPILOT_HOME/config.json`` trusting the test's folders (else the first start asks).
- :class:`CopilotTmux`: the interactive client in a private tmux server (its screen, its process).

Observed with 1.0.102 (tests/clients/NOTES.md has the details): ``node_modules/.bin/copilot`` is a node launcher
that runs the native binary ``@github/copilot-<platform>/copilot``, the session's process (its ``comm`` is
``MainThread``; its hooks' parent); the client asks the model server for ``GET /v1/models`` once, then streams
``POST /v1/chat/completions``, one request a model step, none for a title. Its input row is ready once its footer
reads ``? help``: a prompt typed while it still loads (``● Loading: …``) is lost.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from chat_server import ChatServer, Step, reply, tool_call
from claude_tmux import CLIENTS_DIR, ClaudeTmux, ClientsMissing, IsoHome, _file_lock, process_under
from lunavect_probe import listed, wait_listed

COPILOT_VERSION = "1.0.102"
COPILOT_DIR = CLIENTS_DIR / "copilot"
NPM_PACKAGE = f"@github/copilot@{COPILOT_VERSION}"
#: A model its catalogue knows (tool support, limits); the scripted server answers for any.
MODEL = "gpt-4.1"
#: Its footer once the input row takes a prompt.
READY_RE = re.compile(r"\? help")
LOADING_RE = re.compile(r"● Loading:")
#: Its approval box.
PERMISSION_RE = re.compile(r"Do you want to (?:run this command|allow this)\?")
#: Its `ask_user` form.
QUESTION_RE = re.compile(r"Copilot needs information\.")
_INPUT_ROW = re.compile(r"^❯(?P<typed>.*)$")
_RULE = re.compile(r"^─{10,}$")


def find_copilot(root: Path = COPILOT_DIR) -> Path | None:
    """The pinned `copilot` command (npm's launcher, with its native binary beside it), or None."""
    command = root / "node_modules" / ".bin" / "copilot"
    try:
        version = json.loads((root / "node_modules" / "@github" / "copilot" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return command if version == COPILOT_VERSION and native_binary(root) and command.exists() else None


def native_binary(root: Path = COPILOT_DIR) -> Path | None:
    found = sorted(p for p in (root / "node_modules" / "@github").glob("copilot-*/copilot") if os.access(p, os.X_OK))
    return found[0] if found else None


def pkg_cache(root: Path = COPILOT_DIR) -> Path:
    """Where the binary's JavaScript is unpacked, once for every test."""
    return root / "pkg-cache"


def ensure_copilot(root: Path = COPILOT_DIR, timeout: float = 1800) -> Path:
    """The pinned client, installed from npm once (in the real environment, under a file lock) if missing, its
    JavaScript unpacked once."""
    with _file_lock(root.parent / (root.name + ".lock")):
        found = find_copilot(root)
        if found is None:
            npm = shutil.which("npm")
            if not npm:
                raise ClientsMissing(f"Copilot CLI {COPILOT_VERSION} is not in {root} and npm is not on PATH")
            root.mkdir(parents=True, exist_ok=True)
            if not (root / "package.json").exists():  # keep npm from adopting a parent project
                (root / "package.json").write_text(json.dumps({"name": "lunavect-test-copilot", "private": True}))
            cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", NPM_PACKAGE]
            with open(root / "npm.log", "ab") as log:
                proc = subprocess.run(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
            found = find_copilot(root)
            if proc.returncode != 0 or found is None:
                raise ClientsMissing(f"`{' '.join(cmd)}` failed in {root} (exit {proc.returncode}); see npm.log")
        if not (pkg_cache(root) / "pkg").is_dir():
            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(root),
                "COPILOT_PKG_CACHE_HOME": str(pkg_cache(root)),
            }
            subprocess.run([str(found), "--version"], env=env, capture_output=True, timeout=300, check=True)
        return found


def copilot_home(iso: IsoHome) -> Path:
    return iso.home / ".copilot"


def copilot_env(iso: IsoHome, server: ChatServer, command: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The iso environment plus the scripted server as its model, and nothing that reaches GitHub."""
    env = dict(iso.env)
    env.update(
        {
            "PATH": f"{command.parent}{os.pathsep}{env.get('PATH', '')}",
            "COPILOT_HOME": str(copilot_home(iso)),
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": server.base_url,
            "COPILOT_PROVIDER_API_KEY": "lunavect-test-key",
            "COPILOT_MODEL": MODEL,
            "COPILOT_PKG_CACHE_HOME": str(pkg_cache()),
        }
    )
    if extra:
        env.update(extra)
    return env


def prepare(iso: IsoHome, *folders: Path) -> Path:
    """`config.json` trusting the iso work folder and `folders` (else its first start asks to trust the folder),
    without the start's animation."""
    path = copilot_home(iso) / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    trusted = [str(iso.work), *(str(f) for f in folders)]
    path.write_text(json.dumps({"trustedFolders": trusted, "banner": "never"}, indent=2))
    return path


def without_hooks(iso: IsoHome) -> None:
    """No lunavect hooks for Copilot CLI (the iso fixture's `hooks install` wrote them)."""
    (copilot_home(iso) / "hooks" / "lunavect.json").unlink(missing_ok=True)


def events_files(iso: IsoHome) -> list[Path]:
    return sorted((copilot_home(iso) / "session-state").glob("*/events.jsonl"))


def wait_session(env: dict[str, str], where: Callable[[dict], bool], *, timeout: float = 60) -> dict:
    """Poll `lunavect list --json --all` until a Copilot CLI session satisfies `where`; return it."""
    return wait_listed(env, "copilot", where, timeout=timeout)


def _is_native(info: dict) -> bool:
    return os.path.basename(info["exe"] or "") == "copilot"


class CopilotTmux(ClaudeTmux):
    """The real Copilot CLI in a pane of a private tmux server."""

    client = "copilot"

    def wait_ready(self, timeout: float = 90.0) -> str:
        return self._wait_screen(lambda s: READY_RE.search(s) and not LOADING_RE.search(s), timeout)

    def input_row(self) -> str | None:
        """What its input row holds (stripped), or None when no input row is drawn (a dialog, a form)."""
        rows = [row.strip() for row in self.capture().splitlines()]
        rules = [i for i, row in enumerate(rows) if _RULE.match(row)]
        if len(rules) < 2 or rules[-1] != rules[-2] + 2:
            return None
        match = _INPUT_ROW.match(rows[rules[-2] + 1])
        return match.group("typed").strip() if match else None

    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.5, timeout: float = 30.0) -> None:
        """Type `text` once the input row is ready, then press Enter until the client took the prompt (its row
        empty again, or a dialog in its place)."""
        self.wait_ready(timeout)
        self.tmux("send-keys", "-t", self.target, "-l", text)
        if not enter:
            return
        deadline = time.monotonic() + timeout
        while True:
            while not self._holds(text.strip()):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"copilot's input row did not show {text!r}; screen:\n{self.capture()}")
                time.sleep(0.1)
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")
            settle = time.monotonic() + 3.0
            while time.monotonic() < settle:
                time.sleep(0.1)
                if not self.alive() or self.input_row() in ("", None):
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"copilot did not take the prompt {text!r}; screen:\n{self.capture()}")

    def _holds(self, text: str) -> bool:
        """Its input row shows `text` (a slash command with its arguments' hint after it: `/compact [focus
        instructions]`)."""
        row = self.input_row()
        return row == text or (row is not None and text.startswith("/") and row.startswith(text + " "))

    def interrupt(self, offered: str = "interrupt", timeout: float = 30.0) -> None:
        """Esc twice, once its footer offers what it does (`esc esc interrupt` while a tool runs, `esc esc edit
        prompt` while the model answers: two Esc pressed between the two, or while its hooks run, do nothing):
        one Esc only dismisses a dialog.

        Under load the two can reach the client too far apart to be one gesture: the tool then runs to its end
        and the turn goes on to the model's next reply (the likely cause of the one `ready` seen where an Esc's
        `idle` was awaited). While the offer stays on the screen for seconds after them, nothing was
        interrupted, and they are sent again."""
        offer = f"esc esc {offered}"
        self.wait_for_screen(offer, timeout=timeout)
        for _ in range(3):
            self.send_keys("Escape")
            time.sleep(0.2)
            self.send_keys("Escape")
            deadline = time.monotonic() + 8.0
            while time.monotonic() < deadline:
                if offer not in self.capture():
                    return
                time.sleep(0.2)
        raise TimeoutError(f"{offer!r} stayed on the screen after three double Esc:\n{self.capture()}")

    def send_text_raw(self, text: str) -> None:
        """Type `text` where the cursor is (a dialog's line for the person's words), nothing more."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def pid(self, timeout: float = 30.0) -> int:
        """The session's process: the native binary under the pane's node launcher."""
        return self._find_pid(lambda pane: process_under(pane, _is_native), timeout)


def start_copilot(
    command: Path, iso: IsoHome, env: dict[str, str], *args: str, cwd: Path | None = None, name: str = "copilot"
) -> CopilotTmux:
    """The client in its own tmux server, in `cwd` (the iso work folder), ready for a prompt."""
    client = CopilotTmux(command, env, cwd or iso.work, [*args], root=iso.root, session=name, width=160, height=45)
    client.start()
    client.wait_ready()
    return client


def shell(command: str, *, description: str = "Runs a command") -> Step:
    """A call of Copilot CLI's `bash` tool: the real client runs `command` (after its approval)."""
    return tool_call("bash", {"command": command, "description": description})


def ask_user(message: str, *choices: str) -> Step:
    """A call of its `ask_user` tool: a form of one field offering `choices`."""
    schema = {"properties": {"choice": {"type": "string", "enum": list(choices)}}, "required": ["choice"]}
    return tool_call("ask_user", {"message": message, "requestedSchema": schema})


@contextmanager
def at_the_marker_permission(
    copilot: tuple[Path, IsoHome, dict[str, str]], server: ChatServer, *, before: str = "", after: str = "Marker made"
) -> Iterator[tuple[CopilotTmux, Path, dict]]:
    """The client started and asked to "make the marker", the model scripted to run `touch <marker>` (after the
    shell words `before`) and then to say `after`: (the client at its approval, the marker's path, the session
    in `permission`). The client is killed on leaving."""
    command, iso, env = copilot
    marker = iso.work / "marker"
    server.script(shell(f"{before}touch {marker}"), reply(after))
    client = start_copilot(command, iso, env)
    try:
        client.send_text("make the marker")
        client.wait_for_screen(PERMISSION_RE, timeout=60)
        yield client, marker, wait_session(env, lambda s: s["state"] == "permission", timeout=40)
    finally:
        client.kill()


@contextmanager
def running_the_long_command(
    copilot: tuple[Path, IsoHome, dict[str, str]], server: ChatServer, *after: Step, seconds: int = 40
) -> Iterator[tuple[CopilotTmux, dict]]:
    """The client allowed every tool (`--allow-all-tools`) and told to "run the long command", the model scripted
    to run `sleep <seconds>` (then to answer with `after`): (the client, its session once it runs the tool). The
    client is killed on leaving."""
    command, iso, env = copilot
    server.script(shell(f"sleep {seconds}"), *after)
    client = start_copilot(command, iso, env, "--allow-all-tools")
    try:
        client.send_text("run the long command")
        yield client, wait_session(env, lambda s: s["activity"] == "bash", timeout=60)
    finally:
        client.kill()


def sessions(env: dict[str, str]) -> list[dict]:
    """The Copilot CLI sessions in `lunavect list --json --all`."""
    return listed(env, "copilot")
