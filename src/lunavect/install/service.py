"""`lunavect service`: the collector as a login service, so notifications come with no front end open.

On Linux it is a systemd user unit (`~/.config/systemd/user/lunavect.service`), on macOS a launchd agent
(`~/Library/LaunchAgents/dev.lunavect.collector.plist`). Both run this installation's interpreter on
`lunavect daemon --quiet`, carry the lunavect, Claude Code and Codex folders that were set when it was
installed (and the `PATH` and `TMUX_TMPDIR` it found tmux and the clients' commands with), and restart the
collector if it fails (a collector that stops because its data folder was deleted exits cleanly and stays
stopped). Where no service manager answers (a container, a session without a systemd
user manager), the file is written and the answer says so plainly: front ends still start a collector on
demand.

What it carries is the person's environment, written into a file a service manager reads: a value holding a
control character is refused (a line break in a folder would start a line of the unit of its own, an
`ExecStartPre=` that runs at every login), and a `%` is written `%%` (systemd reads `%h` as the home folder, so
a folder named with one would quietly point the service at another data folder).
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from lunavect.core import clients

UNIT_NAME = "lunavect.service"
LAUNCHD_LABEL = "dev.lunavect.collector"
# lunavect's own variables a collector must see as the installing shell saw them (side-by-side installations,
# tests); each client's descriptor names its own (`Client.environment`).
OWN_ENV = ("LUNAVECT_HOME", "LUNAVECT_CODEX")
# The system's variables the collector needs as the installing shell had them: where tmux's sockets are (the
# status line's publishing) and where the clients' commands are (Codex's catalog runs `codex app-server`).
SYSTEM_ENV = ("PATH", "TMUX_TMPDIR")
MANAGER_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Answer:
    """What a service action did: `ok`, one line for the person, and the file concerned."""

    ok: bool
    message: str
    path: Path | None = None


def _home(environ: dict[str, str]) -> Path:
    return Path(environ.get("HOME") or os.path.expanduser("~"))


class ServiceError(ValueError):
    """What the service would carry cannot be written into its file as it is (a control character)."""


def _checked(what: str, value: str) -> str:
    if any(unicodedata.category(c) == "Cc" for c in value):
        raise ServiceError(
            f"{what} holds a control character (a line break, a tab, an escape): a service file cannot carry it; "
            "rename the folder or unset the variable, then install again"
        )
    return value


def command(python: str | None = None) -> list[str]:
    return [_checked("the interpreter's path", python or sys.executable), "-m", "lunavect", "daemon", "--quiet"]


def carried_names() -> tuple[str, ...]:
    """The variables the service carries: lunavect's own, each client's, then the system's, each once."""
    names = [*OWN_ENV, *(name for client in clients.every() for name in client.install.environment), *SYSTEM_ENV]
    return tuple(dict.fromkeys(names))


def carried(environ: dict[str, str]) -> dict[str, str]:
    """The variables to carry, as set where it is installed (ServiceError for one holding a control character)."""
    return {name: _checked(f"${name}", environ[name]) for name in carried_names() if environ.get(name)}


def _quote_systemd(arg: str) -> str:
    """One word of a unit's line, as systemd reads it back: `%` doubled (a specifier otherwise); quoted, with
    `\\` and `"` escaped, unless it needs none. (A `$` could only be in the interpreter's path, the command
    itself, which systemd takes as it is: only its arguments expand variables.)"""
    arg = arg.replace("%", "%%")
    if arg and all(c.isalnum() or c in "/._-:=+@,%" for c in arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit(environ: dict[str, str], python: str | None = None) -> str:
    """The unit's text (ServiceError when something it carries holds a control character)."""
    lines = [
        "[Unit]",
        "Description=lunavect collector: session states and notifications",
        "Documentation=https://github.com/lunavect/lunavect",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(_quote_systemd(a) for a in command(python)),
    ]
    lines += [f"Environment={_quote_systemd(f'{k}={v}')}" for k, v in carried(environ).items()]
    lines += [
        "Restart=on-failure",
        "RestartSec=5",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def launchd_plist(environ: dict[str, str], log: Path, python: str | None = None) -> bytes:
    data: dict[str, object] = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": command(python),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Background",
        "StandardOutPath": str(log),
        "StandardErrorPath": str(log),
    }
    env = carried(environ)
    if env:
        data["EnvironmentVariables"] = env
    return plistlib.dumps(data)


def unit_path(environ: dict[str, str], platform: str = sys.platform) -> Path:
    if platform == "darwin":
        return _home(environ) / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    config = environ.get("XDG_CONFIG_HOME") or str(_home(environ) / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


def _manager(argv: list[str], environ: dict[str, str]) -> tuple[bool, str]:
    """Run a service manager's command: (succeeded, its first line of output or error)."""
    try:
        done = subprocess.run(
            argv, env=environ, capture_output=True, text=True, timeout=MANAGER_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        return False, f"{argv[0]} is not installed"
    except subprocess.TimeoutExpired:
        return False, f"{argv[0]} did not answer within {MANAGER_TIMEOUT_S:g} s"
    text = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return done.returncode == 0, text[0] if text else ""


def _systemctl(environ: dict[str, str], *args: str) -> tuple[bool, str]:
    return _manager(["systemctl", "--user", *args], environ)


def systemd_manager(environ: dict[str, str]) -> str | None:
    """None when a systemd user manager answers, else why not (in the person's words)."""
    ok, line = _systemctl(environ, "show-environment")
    if ok:
        return None
    return f"no systemd user manager answers here ({line or 'systemctl --user failed'})"


def install(environ: dict[str, str], platform: str = sys.platform, log: Path | None = None) -> Answer:
    path = unit_path(environ, platform)
    try:
        content = (
            launchd_plist(environ, log or Path(os.devnull)) if platform == "darwin" else systemd_unit(environ).encode()
        )
    except ServiceError as exc:
        return Answer(False, f"nothing written to {path}: {exc}", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    if platform == "darwin":
        domain = f"gui/{os.getuid()}"
        _manager(["launchctl", "bootout", f"{domain}/{LAUNCHD_LABEL}"], environ)
        ok, line = _manager(["launchctl", "bootstrap", domain, str(path)], environ)
        if not ok:
            return Answer(False, f"wrote {path}, but launchctl could not load it: {line}", path)
        return Answer(True, f"wrote {path}; the collector runs now and at every login", path)
    absent = systemd_manager(environ)
    if absent:
        return Answer(
            False,
            f"wrote {path}, but {absent}: it starts nothing until a systemd user manager runs "
            "(front ends still start a collector while they run; `lunavect daemon` runs one by hand)",
            path,
        )
    for args in (("daemon-reload",), ("enable", "--now", UNIT_NAME), ("restart", UNIT_NAME)):
        ok, line = _systemctl(environ, *args)
        if not ok:
            return Answer(False, f"wrote {path}, but systemctl --user {' '.join(args)} failed: {line}", path)
    return Answer(True, f"wrote {path}; the collector runs now and at every login", path)


def uninstall(environ: dict[str, str], platform: str = sys.platform) -> Answer:
    path = unit_path(environ, platform)
    if platform == "darwin":
        _manager(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"], environ)
    elif systemd_manager(environ) is None:
        _systemctl(environ, "disable", "--now", UNIT_NAME)
    if not path.exists():
        return Answer(True, f"no service was installed ({path} does not exist)", path)
    path.unlink()
    if platform != "darwin" and systemd_manager(environ) is None:
        _systemctl(environ, "daemon-reload")
    return Answer(True, f"removed {path}; the collector no longer starts at login", path)


def status(environ: dict[str, str], platform: str = sys.platform) -> Answer:
    """Installed or not, whether it runs this installation, and what the service manager says of it."""
    path = unit_path(environ, platform)
    if not path.exists():
        return Answer(False, f"not installed ({path} does not exist): run `lunavect service install`", path)
    text = path.read_bytes().decode(errors="replace")
    try:
        expected = systemd_unit(environ) if platform != "darwin" else None
    except ServiceError as exc:
        return Answer(False, f"installed ({path}), but this shell's {exc}", path)
    if expected is not None and text != expected:
        stale = "installed for another interpreter, other folders or another PATH: run `lunavect service install` again"
        return Answer(False, f"{path} is {stale}", path)
    if platform == "darwin":
        ok, line = _manager(["launchctl", "print", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"], environ)
        return Answer(ok, f"installed ({path}); launchd: {'loaded' if ok else line}", path)
    absent = systemd_manager(environ)
    if absent:
        return Answer(False, f"installed ({path}), but {absent}: the service does not run", path)
    _ok, state = _systemctl(environ, "is-active", UNIT_NAME)
    return Answer(state == "active", f"installed ({path}); systemd: {state or 'unknown'}", path)
