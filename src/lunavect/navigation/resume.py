"""Resuming a finished session: `claude --resume <id>` in its project folder, or `codex resume <id>`.

The command needs the client's CLI and the project folder to still exist (Claude Code finds a conversation
by the folder it was held in), and says which one is missing when they do not. It is printed, copied, or
opened in a new tmux window or terminal window, only when the person asks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lunavect.core import tmux_text
from lunavect.core.clients import by_id
from lunavect.core.resume_command import display_command, shell_words
from lunavect.core.resume_command import in_folder as _in_folder
from lunavect.core.resume_command import resume_args as _resume_args
from lunavect.navigation import clipboard
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals import macos, tmux
from lunavect.navigation.terminals.runner import Reply, run

# Terminals that take the command after `--` rather than `-e`.
_DASH_DASH = {"gnome-terminal", "kgx", "ptyxis", "tilix", "mate-terminal", "xfce4-terminal"}


@dataclass(frozen=True)
class ResumePlan:
    cli: str  # the CLI's absolute path
    args: tuple[str, ...]
    cwd: str | None
    display: str  # what a person types: `cd <folder> && claude --resume <id>`

    @property
    def argv(self) -> list[str]:
        return [self.cli, *self.args]

    @property
    def shell_command(self) -> str:
        """The command with the CLI's absolute path, run in the project folder."""
        return _in_folder(shell_words(self.argv), self.cwd)


def plan(
    provider: str, session_id: str, cwd: str | None, which: Callable[[str], str | None] = shutil.which
) -> ResumePlan | OpenResult:
    """The resume plan, or an UNAVAILABLE result naming what is missing."""
    display = display_command(provider, session_id, cwd)
    args = _resume_args(provider, session_id)
    client = by_id(provider)
    if client is None or display is None or args is None:
        return OpenResult(Outcome.UNAVAILABLE, f"lunavect does not know how to resume {provider} sessions")
    if client.cli.resume_needs_folder and not cwd:
        return OpenResult(
            Outcome.UNAVAILABLE,
            f"its project folder is unknown, and {client.name} resumes a conversation only from the folder it was "
            "held in",
            command=display,
        )
    name = client.cli.command
    if cwd and not os.path.isdir(cwd):
        return OpenResult(
            Outcome.UNAVAILABLE, f"its project folder {cwd} no longer exists (moved or deleted)", command=display
        )
    cli = which(name)
    if cli is None:
        return OpenResult(
            Outcome.UNAVAILABLE, f"the `{name}` command is not on PATH, so it cannot be resumed here", command=display
        )
    return ResumePlan(cli=cli, args=args, cwd=cwd, display=display)


# What a command run in another user's tmux server (`$TMUX` naming a socket that is not this user's) is told.
NOT_YOURS = "the tmux server `$TMUX` names is not yours, so nothing is opened in it"


def tmux_argv(p: ResumePlan, server: tmux.OwnServer | None) -> list[str]:
    """A new window in the tmux session this command runs in (`server`: `$TMUX`'s, when it is this user's;
    `in_tmux` refuses another's), or a new detached session."""
    base = ["tmux", "-S", server.socket] if server is not None else ["tmux"]
    # tmux expands `-c` as a format: a folder named `proj#(touch x)` would run `touch x`.
    cwd = ["-c", tmux_text.expanded_argument(p.cwd)] if p.cwd else []
    command = tmux_text.argument(shell_words(p.argv))
    if server is not None:
        return [
            *base,
            "new-window",
            *server.target,
            "-P",
            "-F",
            "#{session_name}:#{window_index} #{pane_id}",
            *cwd,
            command,
        ]
    return [
        *base,
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{session_name}:#{window_index} #{pane_id}",
        *cwd,
        command,
    ]


def in_tmux(
    p: ResumePlan, environ: dict[str, str], runner: Callable[[list[str]], Reply] = run, done: str = "resumed"
) -> OpenResult:
    """`done` says what running the command does (a background session is attached, not resumed)."""
    server = tmux.own_server(environ)
    if environ.get("TMUX") and server is None:
        return OpenResult(Outcome.UNAVAILABLE, NOT_YOURS, command=p.display)
    argv = tmux_argv(p, server)
    reply = runner(argv)
    if reply.failure == "missing":
        return OpenResult(Outcome.UNAVAILABLE, "tmux is not installed", command=p.display)
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "tmux did not answer within 10 s", terminal="tmux", command=p.display)
    if not reply.ok:
        return OpenResult(Outcome.FAILED, f"tmux: {reply.error_line}", terminal="tmux", command=p.display)
    where, _, pane = reply.stdout.strip().partition(" ")
    if environ.get("TMUX"):
        return OpenResult(
            Outcome.RESUMED, f"{done} in tmux window {where}", terminal="tmux", target=pane, command=p.display
        )
    attach = shell_words(["tmux", "attach", "-t", where.split(":")[0]])
    return OpenResult(
        Outcome.RESUMED,
        f"{done} in the detached tmux session {where}: attach with `{attach}`",
        terminal="tmux",
        target=pane,
        command=attach,
    )


def terminal_argv(
    p: ResumePlan,
    environ: dict[str, str],
    platform: str = sys.platform,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str] | None:
    """How to open the resume command in a new terminal window, or None when there is no desktop."""
    if platform == "darwin":
        return macos.osascript_argv(macos.resume_script(p.shell_command))
    return command_terminal_argv(p.shell_command, environ, which)


def command_terminal_argv(
    shell_command: str, environ: dict[str, str], which: Callable[[str], str | None] = shutil.which
) -> list[str] | None:
    """How to run a shell command in a new terminal window on Linux, or None when there is no desktop."""
    if not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return None
    keep_open = shell_command + '; exec "${SHELL:-sh}"'
    for name in filter(
        None,
        [
            environ.get("TERMINAL"),
            "x-terminal-emulator",
            "kitty",
            "wezterm",
            "foot",
            "alacritty",
            "gnome-terminal",
            "konsole",
            "xfce4-terminal",
            "xterm",
        ],
    ):
        path = which(name)
        if path is None:
            continue
        base = os.path.basename(name)
        if base == "kitty":
            return [path, "sh", "-c", keep_open]
        if base == "wezterm":
            return [path, "start", "--", "sh", "-c", keep_open]
        if base in _DASH_DASH:
            return [path, "--", "sh", "-c", keep_open]
        return [path, "-e", "sh", "-c", keep_open]
    return []


def in_terminal(
    p: ResumePlan, environ: dict[str, str], platform: str = sys.platform, done: str = "resumed"
) -> OpenResult:
    argv = terminal_argv(p, environ, platform)
    if argv is None:
        return OpenResult(
            Outcome.UNAVAILABLE, "there is no desktop session to open a terminal window in", command=p.display
        )
    if not argv:
        return OpenResult(Outcome.UNAVAILABLE, "no terminal emulator found (set $TERMINAL)", command=p.display)
    if platform == "darwin":
        reply = run(argv)
        result = macos.interpret("Terminal", "", reply)
        if reply.ok:
            return OpenResult(
                Outcome.RESUMED, f"{done} in a new Terminal window", terminal="Terminal", command=p.display
            )
        return OpenResult(result.outcome, result.message, terminal="Terminal", command=p.display, grant=result.grant)
    try:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        return OpenResult(Outcome.FAILED, f"{argv[0]}: {exc}", command=p.display)
    return OpenResult(
        Outcome.RESUMED,
        f"{done} in a new {os.path.basename(argv[0])} window",
        terminal=os.path.basename(argv[0]),
        command=p.display,
    )


def to_clipboard(p: ResumePlan, environ: dict[str, str], what: str = "the resume command") -> OpenResult:
    try:
        tool = clipboard.copy(p.display, environ)
    except clipboard.ClipboardError as exc:
        return OpenResult(Outcome.UNAVAILABLE, str(exc), command=p.display)
    return OpenResult(Outcome.RESUMED, f"copied {what} ({tool})", command=p.display)


def deliver(
    p: ResumePlan,
    resume_in: str | None,
    environ: Mapping[str, str],
    why: str,
    *,
    done: str = "resumed",
    what: str = "the resume command",
    ask: str = "resume it with",
) -> OpenResult:
    """The command run in a new tmux or terminal window, copied, or (by default) printed, each said after `why`
    (what `open` found). `done`, `what` and `ask` name what running it does (a background session is attached)."""
    env = dict(environ)
    if resume_in == "tmux":
        result = in_tmux(p, env, done=done)
    elif resume_in == "terminal":
        result = in_terminal(p, env, done=done)
    elif resume_in == "clipboard":
        result = to_clipboard(p, env, what=what)
    else:
        return OpenResult(Outcome.RESUME, f"{why}; {ask}: {p.display}", command=p.display)
    return OpenResult(
        result.outcome,
        f"{why}; {result.message}",
        terminal=result.terminal,
        target=result.target,
        command=result.command,
        grant=result.grant,
    )
