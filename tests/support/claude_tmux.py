"""Run the real Claude Code as a person does: interactively under tmux, or with ``claude -p``.

Everything runs in an isolated, temporary ``HOME`` (:class:`IsoHome`): ``HOME``,
``CLAUDE_CONFIG_DIR`` (= ``$HOME/.claude``), ``CODEX_HOME`` (= ``$HOME/.codex``) and
``LUNAVECT_HOME`` all point into a fresh folder, and so do ``TMPDIR``,
``CLAUDE_CODE_TMPDIR`` and ``XDG_RUNTIME_DIR`` (Claude Code otherwise writes
background-task output under ``/tmp/claude-<uid>/`` and its messaging socket under
``/tmp/cc-socks/``).  Each :class:`ClaudeTmux` has its own tmux server (``tmux -S
<socket in the iso folder>``).  Standard library only.

Observed with Claude Code 2.1.328 (see NOTES.md):

- With ``CLAUDE_CONFIG_DIR`` set, the global config is ``$CLAUDE_CONFIG_DIR/.claude.json``
  (not ``~/.claude.json``).  We write both.
- ``customApiKeyResponses.approved`` must hold the LAST 20 CHARACTERS of the key; the
  full key is not recognised and the "Detected a custom API key" dialog appears.
  We store both forms.
- The prompt is ready ~0.5 s after start.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------
# Where the pinned clients live.  Resolved from the REAL environment at import
# time: tests change HOME only for the clients they start.
# --------------------------------------------------------------------------

CLAUDE_VERSION = "2.1.328"
CODEX_VERSION = "0.169.0"
GEMINI_VERSION = "0.61.0"
NPM_PACKAGES = (
    f"@anthropic-ai/claude-code@{CLAUDE_VERSION}",
    f"@openai/codex@{CODEX_VERSION}",
    f"@google/gemini-cli@{GEMINI_VERSION}",
)

REAL_HOME = Path(os.path.expanduser("~"))
CLIENTS_DIR = Path(os.environ.get("LUNAVECT_CLIENTS_DIR") or REAL_HOME / ".cache" / "lunavect-test-clients")

_tmux_ids = itertools.count(1)

#: A fake key; Claude Code remembers approval of its last 20 characters.
DEFAULT_API_KEY = "sk-ant-api03-lunavect-test-key-0123456789abcdefXYZ"
# A subscription sign-in without a browser: the long-lived token `claude setup-token` prints, in the
# environment (the API key the harness sets is emptied, else the key would win).
SUBSCRIPTION = {"ANTHROPIC_API_KEY": "", "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-lunavect-test-not-a-token"}

HERE = Path(__file__).resolve().parent
HOOK_CAPTURE_SCRIPT = HERE / "hook_capture.py"

#: Every Claude Code hook event a capture hook listens to by default.
CLAUDE_HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "CwdChanged",
    "SessionEnd",
)

#: The input box is drawn: a rule line followed by the "❯" prompt.
# The rule above the prompt may carry the session's name ("──── Parser review ─") once it was renamed.
READY_RE = re.compile(r"─{10,}[^\n]*\n❯")


class ClientsMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class ClientPaths:
    """The installed, pinned clients."""

    root: Path  # the cache folder holding node_modules
    node_modules: Path
    claude: Path  # the native Claude Code binary
    codex: Path | None  # node_modules/.bin/codex (the JS launcher)
    codex_native: Path | None  # the native Codex binary
    claude_version: str | None = None
    codex_version: str | None = None
    gemini: Path | None = None  # node_modules/.bin/gemini (the launcher that relaunches itself)
    gemini_version: str | None = None


def _pkg_version(pkg_dir: Path) -> str | None:
    try:
        return json.loads((pkg_dir / "package.json").read_text()).get("version")
    except (OSError, ValueError):
        return None


def find_clients(root: Path | str | None = None, *, check_versions: bool = True) -> ClientPaths | None:
    """Locate the installed clients under ``root`` (default :data:`CLIENTS_DIR`); None if missing."""
    root = Path(root) if root else CLIENTS_DIR
    nm = root / "node_modules"
    claudes = sorted(p for p in nm.glob("@anthropic-ai/claude-code-*/claude") if p.is_file() and os.access(p, os.X_OK))
    if not claudes:
        return None
    claude_version = _pkg_version(nm / "@anthropic-ai" / "claude-code")
    codex_version = _pkg_version(nm / "@openai" / "codex")
    gemini_version = _pkg_version(nm / "@google" / "gemini-cli")
    if check_versions and (
        claude_version != CLAUDE_VERSION or codex_version != CODEX_VERSION or gemini_version != GEMINI_VERSION
    ):
        return None
    gemini = nm / ".bin" / "gemini"
    codex = nm / ".bin" / "codex"
    natives = sorted(nm.glob("@openai/codex-*/vendor/*/bin/codex"))
    return ClientPaths(
        root=root,
        node_modules=nm,
        claude=claudes[0],
        codex=codex if codex.exists() else None,
        codex_native=natives[0] if natives else None,
        claude_version=claude_version,
        codex_version=codex_version,
        gemini=gemini if gemini.exists() else None,
        gemini_version=gemini_version,
    )


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_clients(root: Path | str | None = None, *, timeout: float = 1800) -> ClientPaths:
    """Return the installed clients, installing them with npm once (under a file lock) if missing.

    Runs in the real environment (real HOME, npm cache), never in an iso HOME.
    Raises :class:`ClientsMissing` if npm is missing or fails.
    """
    root = Path(root) if root else CLIENTS_DIR
    found = find_clients(root)
    if found:
        return found
    with _file_lock(root.parent / (root.name + ".lock")):
        found = find_clients(root)  # another worker may have installed meanwhile
        if found:
            return found
        npm = shutil.which("npm")
        if not npm:
            raise ClientsMissing(f"the pinned clients are not in {root} and npm is not on PATH")
        root.mkdir(parents=True, exist_ok=True)
        pkg = root / "package.json"
        if not pkg.exists():  # keep npm from adopting a parent project
            pkg.write_text(json.dumps({"name": "lunavect-test-clients", "private": True}) + "\n")
        cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", *NPM_PACKAGES]
        with open(root / "npm.log", "ab") as log:
            proc = subprocess.run(
                cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, timeout=timeout, stdin=subprocess.DEVNULL
            )
        found = find_clients(root)
        if proc.returncode != 0 or not found:
            raise ClientsMissing(f"`{' '.join(cmd)}` failed in {root} (exit {proc.returncode}); see npm.log")
        return found


# --------------------------------------------------------------------------
# Processes (via /proc; no psutil needed)
# --------------------------------------------------------------------------


def _readlink(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def proc_info(pid: int) -> dict | None:
    """``pid``, ``ppid``, ``comm``, ``exe``, ``cwd``, ``cmdline``, ``tty_nr``, ``starttime`` (or None if gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    rest = stat[stat.rfind(")") + 2 :].split()
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")[:-1]]
    except OSError:
        cmdline = []
    return {
        "pid": pid,
        "comm": stat[stat.find("(") + 1 : stat.rfind(")")],
        "state": rest[0],
        "ppid": int(rest[1]),
        "pgid": int(rest[2]),
        "sid": int(rest[3]),
        "tty_nr": int(rest[4]),
        "starttime": int(rest[19]),
        "exe": _readlink(f"/proc/{pid}/exe"),
        "cwd": _readlink(f"/proc/{pid}/cwd"),
        "fd0": _readlink(f"/proc/{pid}/fd/0"),
        "cmdline": cmdline,
    }


def all_pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def children(pid: int) -> list[int]:
    out = []
    for p in all_pids():
        info = proc_info(p)
        if info and info["ppid"] == pid:
            out.append(p)
    return out


def descendants(pid: int) -> list[int]:
    """All descendants of ``pid`` (breadth first)."""
    parent_of = {}
    for p in all_pids():
        info = proc_info(p)
        if info:
            parent_of[p] = info["ppid"]
    out, frontier = [], [pid]
    while frontier:
        nxt = [c for c, pp in parent_of.items() if pp in frontier]
        out.extend(nxt)
        frontier = nxt
    return out


def process_under(root_pid: int, match: Callable[[dict], bool]) -> int | None:
    """The first process at or under ``root_pid`` (breadth first) whose :func:`proc_info` satisfies ``match``."""
    for pid in [root_pid, *descendants(root_pid)]:
        info = proc_info(pid)
        if info and match(info):
            return pid
    return None


def wait_process_under(root_pid: int, match: Callable[[dict], bool], what: str, timeout: float = 20) -> int:
    """:func:`process_under`, waited for (a launcher starts its client a moment after it runs)."""
    deadline = time.monotonic() + timeout
    while True:
        found = process_under(root_pid, match)
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} under {root_pid}")
        time.sleep(0.05)


def _environ_home(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for item in f.read().split(b"\0"):
                if item.startswith(b"HOME="):
                    return item[5:].decode("utf-8", "replace")
    except OSError:
        pass
    return None


def _is_under(path: str | None, root: str) -> bool:
    if not path:
        return False
    path = path.removesuffix(" (deleted)")
    return path == root or path.startswith(root.rstrip("/") + "/")


def processes_under(root: Path | str, *, home: Path | str | None = None) -> list[int]:
    """Pids whose executable or cwd lies under ``root``, or whose ``HOME`` environment variable is
    ``home`` or under ``root`` (leaked clients, Codex daemons, tmux servers of a test)."""
    roots = {str(root), os.path.realpath(str(root))}
    me = os.getpid()
    protected = {me}
    p = me
    while p > 1:  # never this process or its ancestors
        info = proc_info(p)
        if not info:
            break
        p = info["ppid"]
        protected.add(p)
    found = []
    for pid in all_pids():
        if pid in protected:
            continue
        exe = _readlink(f"/proc/{pid}/exe")
        cwd = _readlink(f"/proc/{pid}/cwd")
        env_home = _environ_home(pid)
        if any(_is_under(exe, r) or _is_under(cwd, r) or _is_under(env_home, r) for r in roots) or (
            home is not None and env_home == str(home)
        ):
            found.append(pid)
    return found


def kill_pids(pids: Iterable[int], *, grace: float = 2.0) -> list[int]:
    """SIGTERM, then SIGKILL after ``grace`` seconds.  Returns the pids that were signalled."""
    pids = [p for p in pids if p > 1 and p != os.getpid()]
    sent = []
    for p in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(p, signal.SIGTERM)
            sent.append(p)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(p) for p in sent):
        time.sleep(0.05)
    for p in sent:
        if _alive(p):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)
    return sent


def _is_claude(info: dict) -> bool:
    return info["comm"] == "claude" or (info["exe"] or "").endswith("/claude")


def _alive(pid: int) -> bool:
    info = proc_info(pid)
    return bool(info) and info["state"] != "Z"


def kill_processes_under(root: Path | str, *, home: Path | str | None = None, rounds: int = 3) -> list[int]:
    """Kill every process :func:`processes_under` finds (repeated: killing may orphan more)."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = processes_under(root, home=home)
        if not pids:
            break
        killed += kill_pids(pids)
    return killed


# --------------------------------------------------------------------------
# The isolated HOME
# --------------------------------------------------------------------------

_STRIP_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_",
    "OPENAI_",
    "OTEL_",
    "LUNAVECT_",
    "TMUX",
    "XDG_",
    "AWS_BEARER",
    "NODE_OPTIONS",
    "VSCODE_",
    "TERM_PROGRAM",
    "CI_",
    "GITHUB_",
    "GH_",
    "COPILOT_",
)
_STRIP = {
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "TMPDIR",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "API_TIMEOUT_MS",
    # A CI runner's markers: a person's terminal has none, and the clients change under them (Gemini CLI
    # with CI=true or GITHUB_ACTIONS=true runs headless and exits "No input provided via stdin").
    "CI",
    "CONTINUOUS_INTEGRATION",
    "GITHUB_ACTIONS",
    "BUILD_NUMBER",
    "RUN_ID",
}


def base_env(source: dict[str, str] | None = None) -> dict[str, str]:
    """The real environment minus anything that would leak the user's clients, proxies or tmux into a test."""
    src = dict(os.environ if source is None else source)
    return {k: v for k, v in src.items() if k not in _STRIP and not k.startswith(_STRIP_PREFIXES)}


@dataclass
class HookLog:
    """The JSON-lines file written by ``hook_capture.py``: ``{"payload": ..., "meta": ...}`` per hook run."""

    path: Path

    def entries(self) -> list[dict]:
        out = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line:
                        with contextlib.suppress(ValueError):
                            out.append(json.loads(line))
        except FileNotFoundError:
            pass
        return out

    def payloads(self, event: str | None = None) -> list[dict]:
        return [
            e["payload"]
            for e in self.entries()
            if isinstance(e.get("payload"), dict) and (event is None or e["payload"].get("hook_event_name") == event)
        ]

    def events(self) -> list[str]:
        """Event names in arrival order."""
        return [p.get("hook_event_name", "?") for p in self.payloads()]

    def wait_for(
        self, event: str, *, count: int = 1, timeout: float = 30.0, where: Callable[[dict], bool] | None = None
    ) -> dict:
        """Wait until ``count`` payloads of ``event`` (satisfying ``where``) were captured; return the last one."""
        deadline = time.monotonic() + timeout
        while True:
            got = [p for p in self.payloads(event) if where is None or where(p)]
            if len(got) >= count:
                return got[count - 1]
            if time.monotonic() > deadline:
                raise TimeoutError(f"{count}x {event} not captured within {timeout}s; events so far: {self.events()}")
            time.sleep(0.05)


@dataclass
class IsoHome:
    """A temporary, isolated HOME for the clients.  ``env`` is the environment to run them with.

    Layout under ``root``: ``home/`` (HOME), ``home/.claude`` (CLAUDE_CONFIG_DIR), ``home/.codex``
    (CODEX_HOME), ``home/.lunavect`` (LUNAVECT_HOME), ``work/`` (a default project cwd), ``tmp/``
    (TMPDIR, CLAUDE_CODE_TMPDIR), ``run/`` (XDG_RUNTIME_DIR).
    """

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    #: set by the ``iso_home`` fixture: did ``python -m lunavect hooks install`` succeed here?
    lunavect_hooks_installed: bool = False

    @classmethod
    def create(cls, parent: str | Path | None = None, prefix: str = "lv-") -> IsoHome:
        # short paths: unix sockets (tmux, Claude's cc-socks) must stay under ~100 bytes
        root = Path(tempfile.mkdtemp(prefix=prefix, dir=str(parent) if parent else None)).resolve()
        iso = cls(root=root)
        for d in (iso.home, iso.claude_dir, iso.codex_dir, iso.lunavect_home, iso.work, iso.tmp):
            d.mkdir(parents=True, exist_ok=True)
        iso.run.mkdir(mode=0o700, exist_ok=True)
        iso.env = base_env()
        iso.env.update(
            {
                "HOME": str(iso.home),
                "CLAUDE_CONFIG_DIR": str(iso.claude_dir),
                "CODEX_HOME": str(iso.codex_dir),
                "LUNAVECT_HOME": str(iso.lunavect_home),
                "TMPDIR": str(iso.tmp),
                "CLAUDE_CODE_TMPDIR": str(iso.tmp),
                "XDG_RUNTIME_DIR": str(iso.run),
                "XDG_CONFIG_HOME": str(iso.home / ".config"),
                "XDG_CACHE_HOME": str(iso.home / ".cache"),
                "XDG_DATA_HOME": str(iso.home / ".local" / "share"),
                "XDG_STATE_HOME": str(iso.home / ".local" / "state"),
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
        )
        assert not _is_under(str(iso.home), str(REAL_HOME)) or str(REAL_HOME) == "/", iso.home
        return iso

    # -- paths -----------------------------------------------------------
    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def claude_dir(self) -> Path:
        return self.home / ".claude"

    @property
    def codex_dir(self) -> Path:
        return self.home / ".codex"

    @property
    def lunavect_home(self) -> Path:
        return self.home / ".lunavect"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def claude_settings(self) -> Path:
        return self.claude_dir / "settings.json"

    @property
    def claude_sessions(self) -> Path:
        """Claude Code's live catalog folder: ``sessions/<pid>.json`` while a session runs."""
        return self.claude_dir / "sessions"

    def claude_project_dir(self, cwd: Path | str | None = None) -> Path:
        """``$CLAUDE_CONFIG_DIR/projects/<cwd with non-alphanumerics as '-'>``."""
        return self.claude_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd or self.work))

    def transcripts(self, cwd: Path | str | None = None) -> list[Path]:
        return sorted(self.claude_project_dir(cwd).glob("*.jsonl"))

    # -- Claude Code configuration --------------------------------------
    def claude_env(
        self,
        base_url: str,
        *,
        api_key: str = DEFAULT_API_KEY,
        max_retries: int | None = 0,
        extra: dict[str, str] | None = None,
    ) -> dict[str, str]:
        """``env`` plus what Claude Code needs to talk to a local model server and nothing else."""
        env = dict(self.env)
        env.update(
            {
                "ANTHROPIC_BASE_URL": base_url,
                "ANTHROPIC_API_KEY": api_key,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_BUG_COMMAND": "1",
                "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
                "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
                "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
            }
        )
        if max_retries is not None:
            env["CLAUDE_CODE_MAX_RETRIES"] = str(max_retries)
        if extra:
            env.update(extra)
        return env

    def _claude_json_paths(self) -> list[Path]:
        # with CLAUDE_CONFIG_DIR set, 2.1.328 reads $CLAUDE_CONFIG_DIR/.claude.json; older ones ~/.claude.json
        return [self.claude_dir / ".claude.json", self.home / ".claude.json"]

    def prepare_claude(self, *, api_key: str = DEFAULT_API_KEY, cwds: Iterable[Path | str] = ()) -> None:
        """Write/merge ``.claude.json``: onboarding done, the key approved, the cwds trusted."""
        trusted = [str(self.work), *(str(c) for c in cwds)]
        for path in self._claude_json_paths():
            data: dict[str, Any] = {}
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text())
            data["hasCompletedOnboarding"] = True
            data.setdefault("lastOnboardingVersion", CLAUDE_VERSION)
            responses = data.setdefault("customApiKeyResponses", {"approved": [], "rejected": []})
            for form in (api_key[-20:], api_key):  # 2.1.328 matches the last 20 characters
                if form not in responses.setdefault("approved", []):
                    responses["approved"].append(form)
            responses.setdefault("rejected", [])
            projects = data.setdefault("projects", {})
            for cwd in trusted:
                projects.setdefault(cwd, {}).update(
                    {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=2))

    def read_claude_settings(self) -> dict:
        try:
            return json.loads(self.claude_settings.read_text())
        except (OSError, ValueError):
            return {}

    def write_claude_settings(self, data: dict) -> None:
        self.claude_settings.parent.mkdir(parents=True, exist_ok=True)
        self.claude_settings.write_text(json.dumps(data, indent=2))

    def add_claude_hook(
        self, event: str, command: str, *, matcher: str | None = None, timeout: int | None = None
    ) -> None:
        """Append a command hook to ``$CLAUDE_CONFIG_DIR/settings.json`` (merging with what is there)."""
        data = self.read_claude_settings()
        handler: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            handler["timeout"] = timeout
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher is not None:
            group["matcher"] = matcher
        data.setdefault("hooks", {}).setdefault(event, []).append(group)
        self.write_claude_settings(data)

    def install_capture_hooks(
        self, log: Path | str | None = None, events: Iterable[str] = CLAUDE_HOOK_EVENTS
    ) -> HookLog:
        """Test-only: every ``events`` hook appends its payload to ``log`` (default ``<root>/hooks.jsonl``)."""
        path = Path(log) if log else self.root / "hooks.jsonl"
        command = f"{shlex.quote(sys.executable)} {shlex.quote(str(HOOK_CAPTURE_SCRIPT))} {shlex.quote(str(path))}"
        for event in events:
            self.add_claude_hook(event, command)
        return HookLog(path)

    def catalog(self) -> dict[int, dict]:
        """Claude Code's live catalog: ``{pid: contents of sessions/<pid>.json}``."""
        out = {}
        for f in self.claude_sessions.glob("*.json"):
            if f.stem.isdigit():
                with contextlib.suppress(OSError, ValueError):
                    out[int(f.stem)] = json.loads(f.read_text())
        return out

    # -- cleanup ----------------------------------------------------------
    def kill_processes(self) -> list[int]:
        return kill_processes_under(self.root, home=self.home)

    def cleanup(self, *, keep: bool = False, attempts: int = 20) -> None:
        """Kill what runs under the folder, then remove it (retrying: a dying client and its
        SessionEnd hooks may still write for a moment)."""
        for _ in range(attempts):
            self.kill_processes()
            if keep:
                return
            shutil.rmtree(self.root, ignore_errors=True)
            if not self.root.exists():
                return
            time.sleep(0.2)


# --------------------------------------------------------------------------
# claude -p
# --------------------------------------------------------------------------


def run_print(
    claude: Path | str,
    prompt: str,
    *args: str,
    env: dict[str, str],
    cwd: Path | str,
    timeout: float = 60,
    input: str | None = None,
) -> subprocess.CompletedProcess:
    """Run ``claude -p <prompt> [args]`` non-interactively; returns the completed process (text mode)."""
    return subprocess.run(
        [str(claude), "-p", prompt, *args],
        env=env,
        cwd=str(cwd),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL if input is None else None,
        input=input,
        start_new_session=True,
    )


# --------------------------------------------------------------------------
# Interactive Claude Code under a private tmux server
# --------------------------------------------------------------------------

_TMUX_CONF = """\
set -g remain-on-exit on
set -g history-limit 10000
set -g status off
set -g focus-events on
set -g escape-time 10
set -g default-terminal tmux-256color
"""


class ClaudeTmux:
    """The real ``claude`` in a pane of a private tmux server.

    ``args`` are claude's command-line arguments (e.g. ``["--permission-mode", "default"]``).
    With ``via_shell=True`` the pane runs ``sh`` and the command is typed into it, as a person does;
    otherwise claude is the pane's process.
    """

    #: The client's name in the harness's messages.
    client = "claude"

    def __init__(
        self,
        claude: Path | str,
        env: dict[str, str],
        cwd: Path | str,
        args: Iterable[str] = (),
        *,
        root: Path | str | None = None,
        width: int = 200,
        height: int = 50,
        via_shell: bool = False,
        session: str = "main",
    ):
        self.claude = str(claude)
        # A program in a pane learns its size from the pane: COLUMNS and LINES exported by the shell that runs
        # the tests (CI's does) would make Textual draw at that size instead (shutil.get_terminal_size reads them
        # first), as an 80x24 panel in a 120x40 pane.
        self.env = {key: value for key, value in env.items() if key not in ("COLUMNS", "LINES")}
        self.cwd = str(cwd)
        self.args = [str(a) for a in args]
        self.width, self.height = width, height
        self.via_shell = via_shell
        self.session = session
        self._own_root = root is None
        self._root = Path(root) if root else Path(tempfile.mkdtemp(prefix="lvtmux-"))
        self.socket = self._root / f"tmux-{os.getpid()}-{next(_tmux_ids)}.sock"
        self.conf = self._root / "tmux.conf"
        self.started_at: float | None = None
        self.ready_after: float | None = None
        self._pid: int | None = None
        self._known_pids: set[int] = set()

    # -- tmux plumbing -----------------------------------------------------
    @property
    def target(self) -> str:
        return f"{self.session}:0.0"

    def tmux(self, *args: str, check: bool = True, timeout: float = 10) -> subprocess.CompletedProcess:
        """Run a tmux command against this private server."""
        return subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", str(self.conf), *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=check,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    @property
    def command_line(self) -> list[str]:
        return [self.claude, *self.args]

    def start(self) -> ClaudeTmux:
        self.conf.write_text(_TMUX_CONF)
        size = ["-x", str(self.width), "-y", str(self.height)]
        self.started_at = time.monotonic()
        if self.via_shell:
            self.tmux("new-session", "-d", "-s", self.session, *size, "-c", self.cwd, "--", "/bin/sh")
            self.send_text(shlex.join(self.command_line))
        else:
            self.tmux("new-session", "-d", "-s", self.session, *size, "-c", self.cwd, "--", *self.command_line)
        return self

    def __enter__(self) -> ClaudeTmux:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.kill()

    # -- screen --------------------------------------------------------------
    def capture(self, *, history: bool = False, escapes: bool = False) -> str:
        """The pane's text (``capture-pane -p``); with ``history`` also the scrollback."""
        args = ["capture-pane", "-p", "-t", self.target]
        if history:
            args += ["-S", "-"]
        if escapes:
            args.append("-e")
        r = self.tmux(*args, check=False)
        return r.stdout

    def wait_for_screen(
        self, pattern: str | re.Pattern, timeout: float = 30.0, *, history: bool = False, interval: float = 0.1
    ) -> re.Match:
        """Wait until the screen matches ``pattern`` (a regex, MULTILINE); return the match."""
        rx = re.compile(pattern, re.M) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        screen = ""
        while True:
            screen = self.capture(history=history)
            m = rx.search(screen)
            if m:
                return m
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"screen did not match {rx.pattern!r} within {timeout}s; alive={self.alive()}; screen:\n{screen}"
                )
            time.sleep(interval)

    def _wait_screen(self, ready: Callable[[str], object], timeout: float, interval: float = 0.1) -> str:
        """Wait until ``ready(screen)`` (which may raise on a dialog that blocks the client); the screen. Every
        client's harness waits for its input box so; the client ending first fails at once."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.capture()
            if ready(screen):
                return screen
            if time.monotonic() > deadline or not self.alive():
                raise TimeoutError(
                    f"{self.client} not ready within {timeout}s (alive={self.alive()}); screen:\n{screen}"
                )
            time.sleep(interval)

    @staticmethod
    def _claude_ready(screen: str) -> bool:
        if READY_RE.search(screen):
            return True
        if "Detected a custom API key" in screen:
            raise RuntimeError("Claude Code asks to approve the API key; prepare_claude() was not used?\n" + screen)
        return False

    def wait_ready(self, timeout: float = 30.0) -> str:
        """Wait for the input prompt; returns the screen.  Fails early on the API-key or trust dialog."""
        screen = self._wait_screen(self._claude_ready, timeout, interval=0.05)
        if self.ready_after is None and self.started_at is not None:
            self.ready_after = time.monotonic() - self.started_at
        return screen

    # -- input -----------------------------------------------------------------
    def send_text(self, text: str, *, enter: bool = True, pause: float = 0.15) -> None:
        """Type ``text`` literally (``send-keys -l``), then press Enter in a separate send-keys."""
        if text:
            self.tmux("send-keys", "-t", self.target, "-l", text)
        if enter:
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")

    def send_keys(self, *keys: str) -> None:
        """tmux key names, e.g. ``send_keys("Escape")``, ``send_keys("C-c")``, ``send_keys("Down", "Enter")``."""
        if keys:
            self.tmux("send-keys", "-t", self.target, *keys)

    def answer(
        self,
        *keys: str,
        until_gone: str | re.Pattern,
        timeout: float = 10.0,
        retry_every: float = 1.0,
        settle: float = 0.3,
    ) -> None:
        """Answer a dialog (e.g. a permission prompt) with ``keys`` until ``until_gone`` leaves the screen.

        Claude Code ignores keys for ~0.1-0.15 s after a dialog appears (a guard against keys typed
        ahead), so wait ``settle`` seconds first and resend the keys every ``retry_every`` seconds while
        the dialog is still there.
        """
        rx = re.compile(until_gone, re.M) if isinstance(until_gone, str) else until_gone
        time.sleep(settle)
        deadline = time.monotonic() + timeout
        while True:
            self.send_keys(*keys)
            resend_at = time.monotonic() + retry_every
            while time.monotonic() < resend_at:
                time.sleep(0.05)
                if not rx.search(self.capture()):
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{rx.pattern!r} still on screen after {timeout}s:\n{self.capture()}")

    # -- processes -----------------------------------------------------------
    def pane_pid(self) -> int | None:
        r = self.tmux("display-message", "-p", "-t", self.target, "#{pane_pid}", check=False)
        with contextlib.suppress(ValueError):
            return int(r.stdout.strip())
        return None

    def pane_tty(self) -> str | None:
        r = self.tmux("display-message", "-p", "-t", self.target, "#{pane_tty}", check=False)
        return r.stdout.strip() or None

    def server_pid(self) -> int | None:
        r = self.tmux("display-message", "-p", "#{pid}", check=False)
        with contextlib.suppress(ValueError):
            return int(r.stdout.strip())
        return None

    def _find_pid(self, pick: Callable[[int], int | None], timeout: float, interval: float = 0.05) -> int:
        """The client's process, once ``pick(pane pid)`` names it (None: not there yet); remembered, and
        killed with the pane. Every client's harness finds its process so."""
        if self._pid and _alive(self._pid):
            return self._pid
        deadline = time.monotonic() + timeout
        while True:
            pane = self.pane_pid()
            if pane:
                self._known_pids.add(pane)
                found = pick(pane)
                if found:
                    self._pid = found
                    self._known_pids.add(found)
                    return found
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {self.client} process in the pane (pane pid {pane})")
            time.sleep(interval)

    def pid(self, timeout: float = 10.0) -> int:
        """The pid of the claude process (the pane's process, or its descendant named ``claude``)."""
        return self._find_pid(lambda pane: process_under(pane, _is_claude), timeout)

    def alive(self) -> bool:
        """Is the pane's process running (claude, or the shell with via_shell)?"""
        r = self.tmux("display-message", "-p", "-t", self.target, "#{pane_dead}", check=False)
        return r.returncode == 0 and r.stdout.strip() == "0"

    def claude_alive(self) -> bool:
        """Is the claude process itself still running?"""
        return _alive(self._pid) if self._pid else self.alive()

    def catalog_entry(self) -> dict | None:
        """``$CLAUDE_CONFIG_DIR/sessions/<pid>.json`` of this claude, or None."""
        pid = self._pid or self.pid()  # the last known pid, also after claude exited
        path = Path(self.env["CLAUDE_CONFIG_DIR"]) / "sessions" / f"{pid}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def wait_catalog(self, where: Callable[[dict], bool], timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            entry = self.catalog_entry()
            if entry is not None and where(entry):
                return entry
            if time.monotonic() > deadline:
                raise TimeoutError(f"catalog entry not as expected within {timeout}s: {entry}")
            time.sleep(0.05)

    def exit(self, timeout: float = 10.0) -> bool:
        """Leave claude politely (``/exit``); True if it exited."""
        pid = self.pid()
        self.send_keys("Escape")
        time.sleep(0.1)
        self.send_text("/exit")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                return True
            time.sleep(0.05)
        return False

    def kill(self) -> None:
        """Kill the tmux server and any process started in it (claude, tool shells, hooks)."""
        pids: set[int] = set(self._known_pids)
        pp = self.pane_pid() if self.socket.exists() else None
        sp = self.server_pid() if self.socket.exists() else None
        for p in (pp, sp):
            if p:
                pids.add(p)
                pids.update(descendants(p))
        for p in list(self._known_pids):
            pids.update(descendants(p))
        if self.socket.exists():
            self.tmux("kill-server", check=False)
        kill_pids(sorted(pids), grace=2.0)
        with contextlib.suppress(OSError):
            self.socket.unlink()
        if self._own_root:
            shutil.rmtree(self._root, ignore_errors=True)
