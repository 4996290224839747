"""`lunavect tmux install|uninstall`: one marked block in the person's tmux.conf, and the store's switch.

Only the lines between the markers are ever written or removed, so the person's own configuration is never
touched; the file is copied aside before each change, and installing twice changes nothing the second time.
The block names the Python that installed it (`python -m lunavect`), so tmux finds lunavect whatever its
`PATH`, and every command in it is safe to run again: sourcing the file twice does not append twice.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from lunavect.core import tmux_text
from lunavect.core.resume_command import shell_words
from lunavect.install.atomic import replace_file

BEGIN = "# >>> lunavect >>> (written by `lunavect tmux install`; `lunavect tmux uninstall` removes it)"
END = "# <<< lunavect <<<"
BACKUP_SUFFIX = ".lunavect-backup"
POPUP_KEY = "a"
# Beside the popup's: `lunavect next` in a popup that closes once it opened the session, and stays to say why
# when it could not (nothing waits, or the way back failed).
NEXT_KEY = "N"
STATUS_FRAGMENT = " #{@lunavect_status}"
# Added to the person's own pane-border-format (tmux's default one when they have none), and taken back out.
BORDER_FRAGMENT = "#{?@lunavect_state, [#{@lunavect_state}],}"
# What blocks before this one set pane-border-format to, in place of the person's own.
OLD_BORDER_FORMAT = " #{pane_index} #{?@lunavect_state,[#{@lunavect_state}] ,}#{pane_title} "


def conf_path(environ: dict[str, str] | None = None) -> Path:
    """The tmux.conf tmux reads: ~/.tmux.conf, else an existing XDG one, else ~/.tmux.conf (created)."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    classic = home / ".tmux.conf"
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "tmux" / "tmux.conf"
    if not classic.exists() and xdg.exists():
        return xdg
    return classic


def lunavect_command(executable: str | None = None) -> str:
    """The shell command that runs this lunavect: `<python> -m lunavect`."""
    return shell_words([executable or sys.executable, "-m", "lunavect"])


def key_lines(command: str | None = None) -> dict[str, str]:
    """The block's key bindings, by key: the popup's and the next session's."""
    command = command or lunavect_command()
    popup = tmux_text.conf_word(f"{command} tmux popup")
    following = tmux_text.conf_word(f"{command} next")
    return {
        POPUP_KEY: f"bind-key {POPUP_KEY} display-popup -E -w 80% -h 50% {popup}",
        NEXT_KEY: f"bind-key {NEXT_KEY} display-popup -EE -w 80% -h 6 {following}",
    }


def block(command: str | None = None, taken: frozenset[str] = frozenset()) -> str:
    """The block, for the shell command `command` that runs lunavect (the installing Python by default),
    binding none of the `taken` keys (the person's own).

    tmux parses each line, and `run-shell` expands its command as a format: the command is quoted for tmux's
    parser, and its `#` doubled where tmux expands it, so a Python under `~/src/proj#1/.venv` (or one named
    with quotes or `$(...)`) runs as itself. The person's own `status-right` and `pane-border-format` keep
    what they hold: lunavect's fragment is added to each only when it holds none of lunavect's options yet.
    """
    command = command or lunavect_command()
    publish = tmux_text.conf_word(tmux_text.expanded(f"{command} tmux publish"))
    lines = [
        BEGIN,
        f"if -F '#{{m:*@lunavect_status*,#{{status-right}}}}' '' \"set -ag status-right '{STATUS_FRAGMENT}'\"",
        # tmux's default status-right already fills its default 40 columns: make room for the counts.
        "if -F '#{e|<|:#{status-right-length},80}' 'set -g status-right-length 80'",
        f"if -F '#{{m:*@lunavect_state*,#{{pane-border-format}}}}' '' \"set -ag pane-border-format '{BORDER_FRAGMENT}'\"",
        *(line for key, line in key_lines(command).items() if key not in taken),
        f"run-shell -b {publish}",
        END,
    ]
    return "\n".join(lines) + "\n"


def _bound_key(words: list[str]) -> tuple[str, str, bool] | None:
    """A `bind-key` or `unbind-key` line's (table, key, bound), or None for any other line."""
    if not words or words[0] not in ("bind", "bind-key", "unbind", "unbind-key"):
        return None
    table, rest = "prefix", words[1:]
    while rest and rest[0].startswith("-") and len(rest[0]) > 1:
        flag = rest.pop(0)
        if flag in ("-T", "-N") and rest:
            value = rest.pop(0)
            table = value if flag == "-T" else table
        elif "n" in flag:
            table = "root"
    if not rest:
        return None
    return table, rest[0], words[0].startswith("bind")


def persons_keys(text: str, keys: Iterable[str] = (POPUP_KEY, NEXT_KEY)) -> frozenset[str]:
    """Which of `keys` the person's own tmux.conf (outside lunavect's block) binds after the prefix: lunavect
    never takes one of those."""
    bound: set[str] = set()
    for line in without_block(text).splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        found = _bound_key(words)
        if found is not None and found[0] == "prefix" and found[1] in keys:
            (bound.add if found[2] else bound.discard)(found[1])
    return frozenset(bound)


def without_block(text: str) -> str:
    """The file's text with lunavect's block (every copy of it) taken out, nothing else changed."""
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.rstrip("\n") == BEGIN:
            inside = True
            continue
        if inside:
            if line.rstrip("\n") == END:
                inside = False
            continue
        out.append(line)
    return "".join(out)


def _write(path: Path, text: str) -> Path | None:
    """Write `text` over `path` after copying the old file aside; returns the backup's path."""
    backup = None
    if path.exists():
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if backup is not None else 0o644  # the person's file keeps its mode
    replace_file(path, text, mode=mode, prefix=f".{path.name}.lunavect-")
    return backup


def install(path: Path, taken: frozenset[str] = frozenset()) -> tuple[bool, Path | None]:
    """Add (or refresh) the block at the end, binding none of the `taken` keys; (changed, backup)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = without_block(old)
    if kept and not kept.endswith("\n"):
        kept += "\n"
    new = kept + block(taken=taken)
    if new == old:
        return False, None
    return True, _write(path, new)


def uninstall(path: Path) -> tuple[bool, Path | None]:
    if not path.exists():
        return False, None
    old = path.read_text(encoding="utf-8")
    new = without_block(old)
    if new == old:
        return False, None
    return True, _write(path, new)
