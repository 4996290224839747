"""Opening a session that runs on another machine (sync): its pids and terminals are that machine's, so the way
back goes through that machine's lunavect over ssh. Which command, the row decides by its two booleans (never
by a text it carries: a remote row's `resume` and terminal are never run here):

- live in a tmux pane there (`open` and `in_tmux`): `ssh -t HOST lunavect open ID --attach`, whose terminal
  becomes a tmux client showing exactly that pane (`attach_here` runs there; it refuses, with its reason, when
  it cannot prove the pane);
- live elsewhere there: `ssh HOST -t lunavect open ID`, which has that machine focus its own terminal;
- ended: `ssh HOST -t lunavect resume ID`, which resumes it in the ssh terminal.

Inside tmux the command runs in a new window of the person's tmux session, which stays open when the command
fails until the person has read why; elsewhere it is printed for the person to run. The host name and the session id are checked again here, at the sink, before either is put in
a command line (`sync.keys` checked them where they entered); each word is quoted for both shells it meets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lunavect.core import tmux_text
from lunavect.core.ids import is_session_id
from lunavect.core.resume_command import ssh_attach_command, ssh_command
from lunavect.host.name import machine_name
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals import tmux
from lunavect.navigation.terminals.runner import Reply, run
from lunavect.sync.keys import PROVIDER_NAME, valid_host


def sync_host() -> str | None:
    """This machine's sync host name, or None when sync is off (then every row is this machine's)."""
    from lunavect import store
    from lunavect.sync.presence import local_host

    try:
        conn = store.connect()
    except (store.StoreError, OSError):
        return None
    try:
        return local_host(conn)
    finally:
        conn.close()


def is_elsewhere(host: str | None) -> bool:
    """True for a row of another machine: only sync brings those, and they carry another host's name."""
    if not host:
        return False
    own = sync_host()
    return own is not None and host not in (own, machine_name())


def unsafe(host: str, key: str) -> str | None:
    """Why `host` or the session id `key` may not go into an ssh command line, or None when both may."""
    if not valid_host(host):
        return "its host name is not one lunavect connects to (letters, digits, `-` and `_`)"
    provider, _, session_id = key.partition(":")
    if PROVIDER_NAME.match(provider) is None or not is_session_id(session_id):
        return "its id is not a session id lunavect writes"
    return None


def way_there(host: str, key: str, live: bool, in_tmux: bool) -> tuple[str, str]:
    """The ssh command for another machine's session, and what it does, in words."""
    if live and in_tmux:
        return ssh_attach_command(host, key), f"it runs in a tmux pane on {host}; attach to that pane"
    if live:
        return ssh_command(host, "open", key), f"it runs on {host}; open it there"
    return ssh_command(host, "resume", key), f"it has ended on {host}; resume it there"


# What the new window runs: the command, and when it fails (ssh unreachable, the other machine refusing with its
# reason), the window stays until the person has read why; a window that closed at once would hide the reason.
HOLD = "{command} || {{ printf '\\n%s' 'lunavect: it did not open (see above); press Enter to close.'; read -r _; }}"


def open_remote(
    host: str,
    key: str,
    environ: Mapping[str, str],
    *,
    live: bool = True,
    in_tmux: bool = False,
    runner: Callable[[list[str]], Reply] = run,
) -> OpenResult:
    """Open `host`'s session `key` as its row says it is (`live`, `in_tmux`): in a new tmux window, or printed."""
    problem = unsafe(host, key)
    if problem is not None:
        return OpenResult(Outcome.UNAVAILABLE, f"cannot open it on another machine: {problem}")
    command, doing = way_there(host, key, live, in_tmux)
    server = tmux.own_server(environ)
    if server is None:  # outside tmux, or in a server of another user's (never talked to)
        return OpenResult(Outcome.RESUME, f"{doing} with: {command}", command=command)
    reply = runner(
        [
            "tmux",
            "-S",
            server.socket,
            "new-window",
            *server.target,
            "-P",
            "-F",
            "#{session_name}:#{window_index} #{pane_id}",
            # As words tmux runs itself (tmux 3.0 and later), so the script is sh's whatever the default shell.
            "sh",
            "-c",
            tmux_text.argument(HOLD.format(command=command)),
        ]
    )
    if not reply.ok:
        why = "tmux did not answer within 10 s" if reply.failure == "timeout" else f"tmux: {reply.error_line}"
        return OpenResult(Outcome.FAILED, f"{why}; {doing} with: {command}", terminal="tmux", command=command)
    where, _, pane = reply.stdout.strip().partition(" ")
    return OpenResult(
        Outcome.RESUMED,
        f"{doing}: opened in tmux window {where}: {command}",
        terminal="tmux",
        target=pane or None,
        command=command,
    )
