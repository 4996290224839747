"""Run the real Gemini CLI in an isolated HOME against the scripted Gemini API, and read lunavect.

- :func:`gemini_env`: the iso environment plus what Gemini CLI needs (``GEMINI_CLI_HOME`` inside the iso HOME,
  the scripted server's base URL and key).
- :func:`write_settings`: ``$GEMINI_CLI_HOME/.gemini/settings.json`` with the settings that keep the client local
  and quiet (and, through ``extra``, lunavect's hooks or a test's).
- :class:`GeminiTmux`: the interactive client in a private tmux server (its screen, its pane title, its process).
- :func:`wait_session`: ``lunavect list --json --all`` polled for a Gemini session in a given state.

Observed with 0.61.0: the launcher ``node …/bin/gemini`` relaunches itself as a child ``node …/bin/gemini`` with
``GEMINI_CLI_NO_RELAUNCH=true``; the child is the session (it runs the hooks and writes the chat file). Prompts typed
while it starts are queued ("Initializing... Prompts will be queued."), and an Enter typed then is lost: type
only once the input box is ready.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from claude_tmux import ClaudeTmux, ClientPaths, IsoHome, descendants, proc_info
from gemini_server import MODEL, GeminiServer, Step, shell, text
from lunavect_probe import installed_lunavect, listed, wait_listed

#: The tests run lunavect's installed command through this name, as for the other clients.
lunavect = installed_lunavect
#: The input box is drawn and takes a prompt.
READY_RE = re.compile(r"Type your message")
#: The client is still starting: what is typed now waits, and an Enter is lost.
STARTING_RE = re.compile(r"Initializing\.\.\.")
#: A tool's permission dialog.
PERMISSION_RE = re.compile(r"Allow execution|Apply this change|Allow once")
#: The ask_user tool's questions.
QUESTION_RE = re.compile(r"Answer Questions")
#: The line drawn just above the input box.
BOX_HEADER_RE = re.compile(r"accept edits|for shortcuts|YOLO Ctrl\+Y")
#: The input box's own prompt sign: `>`, or `*` in YOLO mode.
BOX_SIGNS = (">", "*")
#: A hook is running (drawn above the input box while it runs).
HOOK_RUNNING_RE = re.compile(r"Executing Hook")


def gemini_home(iso: IsoHome) -> Path:
    """``$GEMINI_CLI_HOME/.gemini``: the client's own folder in the iso HOME."""
    return iso.home / ".gemini"


def gemini_env(iso: IsoHome, server: GeminiServer, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(iso.env)
    env.update(server.env())
    env["GEMINI_CLI_HOME"] = str(iso.home)
    env["NO_BROWSER"] = "true"
    if extra:
        env.update(extra)
    return env


def write_settings(iso: IsoHome, extra: dict | None = None, *, hooks: bool = True) -> Path:
    """The quiet local settings, merged with what the file holds already (lunavect's hooks, unless not
    ``hooks``) and ``extra``."""
    path = gemini_home(iso) / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        current = json.loads(path.read_text())
    except (OSError, ValueError):
        current = {}
    settings = {**GeminiServer.settings(), **current, **(extra or {})}
    settings.setdefault("general", {})["maxAttempts"] = 1  # an error fails the turn at once (no 10 retries)
    if not hooks:
        settings.pop("hooks", None)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


def sessions(env: dict[str, str]) -> list[dict]:
    """The Gemini sessions in `lunavect list --json --all`."""
    return listed(env, "gemini")


def wait_session(
    env: dict[str, str], where: Callable[[dict], bool], *, timeout: float = 60, interval: float = 0.3
) -> dict:
    """Poll `lunavect list --json --all` until a Gemini session satisfies `where`; return it."""
    return wait_listed(env, "gemini", where, timeout=timeout, interval=interval)


def wait_permission(client: GeminiTmux, env: dict[str, str]) -> dict:
    """The client's permission dialog on its screen, then its session in `permission`; that session."""
    client.wait_for_screen(PERMISSION_RE.pattern, timeout=40)
    return wait_session(env, lambda s: s["state"] == "permission", timeout=30)


def wait_reply(client: GeminiTmux, env: dict[str, str], reply: str, *, timeout: float = 40) -> dict:
    """The model's reply drawn on the client's screen, then its session `ready`; that session."""
    client.wait_for_screen(reply, timeout=timeout)
    return wait_session(env, lambda s: s["state"] == "ready", timeout=30)


def chat_files(iso: IsoHome) -> list[Path]:
    return sorted((gemini_home(iso) / "tmp").glob("*/chats/session-*.jsonl"))


class GeminiTmux(ClaudeTmux):
    """The real Gemini CLI in a pane of a private tmux server."""

    client = "gemini"

    def wait_ready(self, timeout: float = 60.0, *, starting: bool = True) -> str:
        """Wait for the input box with its placeholder; while `starting`, also for the client's start to end
        (once started, a prompt queued at its start leaves "Initializing..." in the history for good)."""
        return self._wait_screen(
            lambda screen: READY_RE.search(screen) and not (starting and STARTING_RE.search(screen)), timeout
        )

    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.3, timeout: float = 20.0) -> None:
        """Type `text` once the input box is ready, then press Enter until the client shows it took the prompt
        (its box drawn empty again, or a dialog in its place)."""
        self.wait_ready(timeout, starting=False)
        self.tmux("send-keys", "-t", self.target, "-l", text)
        if not enter:
            return
        deadline = time.monotonic() + timeout
        while True:
            self._wait_holding(text, deadline)
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")
            settle = time.monotonic() + 3.0
            while time.monotonic() < settle:
                time.sleep(0.1)
                if not self.alive() or self._taken():
                    return  # submitted (or the command ended the client: `/quit`)
            if time.monotonic() > deadline:
                raise TimeoutError(f"gemini did not take the prompt {text!r}; screen:\n{self.capture()}")

    def _box(self) -> str | None:
        """What the input box shows (its placeholder or what it holds), or None when it is not drawn."""
        lines = self.capture().splitlines()
        below = [i for i, line in enumerate(lines) if BOX_HEADER_RE.search(line)]
        box = [line.strip() for line in lines[below[-1] + 1 :] if line.strip()] if below else []
        return box[0][1:].strip() if box and box[0].startswith(BOX_SIGNS) else None

    def _wait_holding(self, text: str, deadline: float) -> None:
        """Wait until the box shows all of `text` and no hook runs (an Enter pressed while a hook runs, or
        before the typed text is drawn, is lost)."""
        while True:
            if self._box() == text.strip() and not HOOK_RUNNING_RE.search(self.capture()):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"gemini's input box did not show {text!r}; screen:\n{self.capture()}")
            time.sleep(0.1)

    def _taken(self) -> bool:
        """The prompt was taken: the input box is drawn with its placeholder, or a dialog replaced it. A screen
        caught mid-redraw, or a box still holding (part of) the text, says nothing yet."""
        screen = self.capture()
        if PERMISSION_RE.search(screen) or QUESTION_RE.search(screen):
            return True
        box = self._box()
        return box is not None and READY_RE.search(box) is not None

    def title(self) -> str:
        """The pane's title as the client set it (OSC 2)."""
        return self.tmux("display-message", "-p", "-t", self.target, "#{pane_title}", check=False).stdout.strip()

    def wait_title(self, pattern: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            current = self.title()
            if re.search(pattern, current):
                return current
            if time.monotonic() > deadline:
                raise TimeoutError(f"pane title {current!r} did not match {pattern!r} within {timeout}s")
            time.sleep(0.1)

    def pid(self, timeout: float = 20.0) -> int:
        """The session's process: the relaunched child `node …/gemini` (the deepest node under the pane)."""
        return self._find_pid(_relaunched_child, timeout, interval=0.1)


@contextmanager
def at_the_marker_permission(
    gemini: tuple[ClientPaths, IsoHome, dict[str, str]],
    server: GeminiServer,
    *,
    before: str = "",
    reply: str = "should not come",
) -> Iterator[tuple[GeminiTmux, Path, dict]]:
    """The client started and asked to "make the marker", the model scripted to run `touch <marker>` (after
    the shell words ``before``) and then to say ``reply``: (the client at its permission dialog, the marker's
    path, the session in `permission`). The client is killed on leaving."""
    paths, iso, env = gemini
    marker = iso.work / "marker"
    server.script(shell(f"{before}touch {marker}"), text(reply))
    client = start_gemini(paths, iso, env)
    try:
        client.send_text("make the marker")
        yield client, marker, wait_permission(client, env)
    finally:
        client.kill()


@contextmanager
def running_the_long_command(
    gemini: tuple[ClientPaths, IsoHome, dict[str, str]],
    server: GeminiServer,
    *after: Step,
    seconds: int = 30,
    until: Callable[[dict], bool] = lambda s: s["activity"] == "run_shell_command",
) -> Iterator[tuple[GeminiTmux, dict]]:
    """The client in YOLO mode told to "run the long command", the model scripted to run `sleep <seconds>`
    (then to answer with ``after``): (the client, its session once ``until`` holds: by default once it runs
    the shell tool). The client is killed on leaving."""
    paths, iso, env = gemini
    server.script(shell(f"sleep {seconds}"), *after)
    client = start_gemini(paths, iso, env, "--approval-mode", "yolo")
    try:
        client.send_text("run the long command")
        yield client, wait_session(env, until, timeout=40)
    finally:
        client.kill()


def _relaunched_child(pane: int) -> int | None:
    """The first `node` under the pane whose parent is a `node` too (the launcher relaunches itself)."""
    nodes = [p for p in [pane, *descendants(pane)] if (proc_info(p) or {}).get("comm") == "node"]
    children = [p for p in nodes if (proc_info(p) or {}).get("ppid") in nodes]
    return children[0] if children else None


def start_gemini(
    paths: ClientPaths, iso: IsoHome, env: dict[str, str], *args: str, cwd: Path | None = None, name: str = "gemini"
) -> GeminiTmux:
    """The client in its own tmux server, in `cwd` (the iso work folder), ready for a prompt."""
    assert paths.gemini is not None, "Gemini CLI is not installed"
    session = GeminiTmux(
        paths.gemini, env, cwd or iso.work, ["-m", MODEL, "--skip-trust", *args], root=iso.root, session=name
    )
    session.start()
    session.wait_ready(90)
    return session
