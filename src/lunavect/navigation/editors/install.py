"""`lunavect editors install | uninstall | status`: the companion put into an editor through the editor's own
`--install-extension`, taken out through its `--uninstall-extension`, and seen in its extensions folder.

Status reads files only (the extensions folder's `extensions.json`, the windows' registrations) and asks each
open window's companion one short `ping`, so doctor and the panel's settings can show it without starting an
editor. Where an install went (the command and folders it was given) is kept in lunavect's data folder, so
status looks in the same folder afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lunavect import paths
from lunavect.install.atomic import replace_file
from lunavect.navigation.editors import ask as asking
from lunavect.navigation.editors import companion, windows
from lunavect.navigation.terminals.runner import Reply, run

RECORD_FILE = "editor-companions.json"
INSTALL_TIMEOUT_S = 180.0
PING_TIMEOUT_S = 2.0


class EditorError(Exception):
    """What went wrong, in one line for the person."""


@dataclass(frozen=True)
class Editor:
    name: str
    command: str  # the editor's command line, found on PATH
    default_extensions: Callable[[dict[str, str]], Path]


def _home(env: dict[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _vscode_extensions(env: dict[str, str]) -> Path:
    override = env.get("VSCODE_EXTENSIONS")
    return Path(override) if override else _home(env) / ".vscode" / "extensions"


def _code_server_extensions(env: dict[str, str]) -> Path:
    xdg = env.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg.startswith("/") else _home(env) / ".local" / "share"
    return base / "code-server" / "extensions"


EDITORS: dict[str, Editor] = {
    "vscode": Editor("vscode", "code", _vscode_extensions),
    "code-server": Editor("code-server", "code-server", _code_server_extensions),
}


@dataclass
class EditorStatus:
    editor: str
    extensions_dir: str
    installed: str | None  # the installed companion's version
    current: str  # the version this lunavect ships
    windows: int = 0  # open windows whose companion registered
    answering: int = 0  # of those, how many answered a ping
    # Each what is wrong with the fix for it: {"what": ..., "fix": ...}.
    problems: list[dict[str, str]] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        return self.installed is not None and self.installed != self.current

    def as_dict(self) -> dict:
        return asdict(self)


def _record_path() -> Path:
    return paths.data_dir() / RECORD_FILE


def _records() -> dict[str, dict]:
    try:
        data = json.loads(_record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in EDITORS and isinstance(v, dict)}


def _save_records(records: dict[str, dict]) -> None:
    paths.ensure_private_dir(paths.data_dir())
    path = _record_path()
    replace_file(path, json.dumps(records), mode=0o600, prefix=f".{path.name}.")


def extensions_dir(editor: str, env: dict[str, str] | None = None) -> Path:
    """Where `editor`'s extensions are: the folder the last install was given, else the editor's default."""
    recorded = _records().get(editor, {}).get("extensions_dir")
    if isinstance(recorded, str) and recorded.startswith("/"):
        return Path(recorded)
    return EDITORS[editor].default_extensions(dict(os.environ if env is None else env))


def installed_version(folder: Path) -> str | None:
    """The companion's version in an extensions folder, as the editor itself lists it (`extensions.json`,
    less what `.obsolete` marks as removed)."""
    try:
        listing = json.loads((folder / "extensions.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        listing = []
    try:
        obsolete = json.loads((folder / ".obsolete").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        obsolete = {}
    if not isinstance(listing, list):
        return None
    for entry in listing:
        if not isinstance(entry, dict):
            continue
        ident = entry.get("identifier")
        version = entry.get("version")
        if not isinstance(ident, dict) or str(ident.get("id", "")).lower() != companion.EXTENSION_ID:
            continue
        if not isinstance(version, str) or len(version) > 40:
            continue
        location = entry.get("relativeLocation")
        if isinstance(location, str) and "/" not in location and not (folder / location).is_dir():
            continue
        if isinstance(obsolete, dict) and obsolete.get(f"{companion.EXTENSION_ID}-{version}"):
            continue
        return version
    return None


def _cli(editor: str, command: str | None) -> str:
    spec = EDITORS[editor]
    found = shutil.which(command or spec.command)
    if found is None:
        raise EditorError(f"`{command or spec.command}` is not on PATH: name {editor}'s command with --command")
    return found


def _folder_args(extensions: Path | None, user_data: Path | None) -> list[str]:
    argv: list[str] = []
    if extensions is not None:
        argv += ["--extensions-dir", str(extensions)]
    if user_data is not None:
        argv += ["--user-data-dir", str(user_data)]
    return argv


def _run_cli(argv: list[str], what: str, runner: Callable[..., Reply]) -> Reply:
    reply = runner(argv, timeout=INSTALL_TIMEOUT_S)
    if reply.failure == "timeout":
        raise EditorError(f"{what}: the editor did not finish within {INSTALL_TIMEOUT_S:g} s")
    if not reply.ok:
        raise EditorError(f"{what}: {reply.error_line}")
    return reply


def install(
    editor: str,
    command: str | None = None,
    extensions: Path | None = None,
    user_data: Path | None = None,
    runner: Callable[..., Reply] = run,
) -> EditorStatus:
    """Build the companion for this lunavect's data folder and install it with the editor's own command."""
    cli = _cli(editor, command)
    channel = paths.ensure_private_dir(paths.ensure_private_dir(paths.data_dir()) / windows.FOLDER_NAME)
    version = companion.manifest().version
    with tempfile.TemporaryDirectory(prefix="lunavect-companion-") as scratch:
        vsix = companion.build_vsix(Path(scratch) / f"lunavect-companion-{version}.vsix", channel)
        argv = [cli, *_folder_args(extensions, user_data), "--install-extension", str(vsix), "--force"]
        _run_cli(argv, f"{editor} --install-extension", runner)
    records = _records()
    records[editor] = {
        "command": cli,
        "extensions_dir": str(extensions or EDITORS[editor].default_extensions(dict(os.environ))),
        "user_data_dir": str(user_data) if user_data else None,
        "version": version,
        "at": time.time(),
    }
    _save_records(records)
    return status_of(editor)


def uninstall(
    editor: str,
    command: str | None = None,
    extensions: Path | None = None,
    user_data: Path | None = None,
    runner: Callable[..., Reply] = run,
) -> tuple[str | None, Path]:
    """Remove the companion with the editor's own command; the version removed (None when there was none)
    and the extensions folder it was looked for in."""
    records = _records()
    recorded = records.get(editor, {})
    cli = _cli(editor, command or recorded.get("command"))
    if extensions is None and isinstance(recorded.get("extensions_dir"), str):
        extensions = Path(recorded["extensions_dir"])
    if user_data is None and isinstance(recorded.get("user_data_dir"), str):
        user_data = Path(recorded["user_data_dir"])
    folder = extensions or extensions_dir(editor)
    removed = installed_version(folder)
    if removed is not None:
        argv = [cli, *_folder_args(extensions, user_data), "--uninstall-extension", companion.EXTENSION_ID]
        _run_cli(argv, f"{editor} --uninstall-extension", runner)
    records.pop(editor, None)
    _save_records(records)
    return removed, folder


def _answering(window: windows.Window) -> bool:
    answer = asking.ask(window, {"op": "ping"}, timeout=PING_TIMEOUT_S)
    return isinstance(answer, asking.Answer) and answer.ok


def status_of(
    editor: str, folder: Path | None = None, registrations: windows.Registrations | None = None
) -> EditorStatus:
    folder = folder or extensions_dir(editor)
    current = companion.manifest().version
    found = EditorStatus(editor, str(folder), installed_version(folder), current)
    registrations = windows.read() if registrations is None else registrations
    mine = [w for w in registrations.windows if w.editor == editor]
    found.windows = len(mine)
    found.answering = sum(1 for w in mine if _answering(w))
    if found.stale:
        found.problems.append(
            {
                "what": f"{editor}: the companion is version {found.installed}, this lunavect ships {current}",
                "fix": f"lunavect editors install {editor}, then reload its windows",
            }
        )
    if found.windows > found.answering:
        found.problems.append(
            {
                "what": f"{editor}: {found.windows - found.answering} window(s) registered but not answering",
                "fix": "reload that window (Developer: Reload Window); a window that ended without closing leaves "
                f"its files in {windows.folder()}, which can go",
            }
        )
    return found


def status() -> list[EditorStatus]:
    """Each editor lunavect has a companion for: installed (which version), its windows and how many answer."""
    registrations = windows.read()
    return [status_of(name, registrations=registrations) for name in EDITORS]


def is_installed(editor: str) -> bool:
    return installed_version(extensions_dir(editor)) is not None


def describe(s: EditorStatus) -> str:
    """One line for people: doctor, `lunavect editors status`, the panel's settings."""
    if s.installed is None:
        return f"{s.editor}: companion not installed (lunavect editors install {s.editor})"
    state = f"companion {s.installed} installed ({s.extensions_dir})"
    if s.stale:
        state += f", this lunavect ships {s.current}"
    if s.windows == 0:
        return f"{s.editor}: {state}, no window open"
    return f"{s.editor}: {state}, {s.answering} of {s.windows} window(s) answering"
